package server

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
)

// The fast path of POST /verdict. A verdict costs a few microseconds of
// work; encoding/json, io.ReadAll and the response buffer made most of the
// allocations of a request (about 2 KB of the 3.2 KB per request, see the
// README), and allocations are what the garbage collector pauses for. The
// common body, a flat object of plain ASCII strings and a boolean, is read
// into a pooled buffer and parsed by hand; the answer is appended into a
// pooled buffer. Anything else (escapes, non-ASCII, '<' or '>', strings over
// 256 bytes, unknown or differently cased keys, wrong types, another
// Content-Type, a body without Content-Length or over 1 KiB) goes
// through encoding/json exactly as before, so the error messages do not
// change. TestVerdictFastPathMatchesEncodingJSON compares both paths.

// verdictFastPath switches the fast path (off in tests that compare).
var verdictFastPath = true

const maxFastBody = 1024

var verdictBufs = sync.Pool{New: func() any { return new([maxFastBody]byte) }}

var outBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

var jsonContentType = []string{"application/json"}

// decodeVerdict reads and checks the body of POST /verdict; false when it
// already answered with an error.
func (s *Server) decodeVerdict(w http.ResponseWriter, r *http.Request) (VerdictRequest, bool) {
	var req VerdictRequest
	var b []byte
	if n := r.ContentLength; verdictFastPath && n > 0 && n <= maxFastBody && n <= s.cfg.MaxBodyBytes && jsonOrNoType(r) {
		buf := verdictBufs.Get().(*[maxFastBody]byte)
		defer verdictBufs.Put(buf)
		if _, err := io.ReadFull(r.Body, buf[:n]); err != nil {
			if isTimeout(err) { // the server's readTimeout (limits.go)
				w.Header().Set("Connection", "close")
				writeError(w, http.StatusRequestTimeout, "body not received in time", "")
				return req, false
			}
			writeError(w, http.StatusBadRequest, "cannot read body: "+err.Error(), "")
			return req, false
		}
		if parseVerdictFast(buf[:n], &req) {
			return req, true
		}
		req = VerdictRequest{}
		b = buf[:n]
		if be := scanBody(b, verdictShape, false); be != nil { // body.go: the checks of every body
			writeError(w, http.StatusBadRequest, "invalid body: "+be.Error(), be.Pointer)
			return req, false
		}
	} else {
		var ok bool
		if b, ok = s.readJSONBody(w, r, maxSmallBody, verdictShape, false); !ok {
			return req, false
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid verdict request: "+jsonErr(err), jsonField(err))
		return req, false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "invalid verdict request: one JSON object expected", "")
		return req, false
	}
	return req, true
}

// jsonOrNoType: the request has no Content-Type or exactly application/json.
func jsonOrNoType(r *http.Request) bool {
	ct := r.Header["Content-Type"]
	return len(ct) == 0 || (len(ct) == 1 && ct[0] == "application/json")
}

// parseVerdictFast parses {"tenantId": "...", "agentId": "...", "method":
// "...", "shadow": true|false} (any order, any subset, JSON whitespace)
// with plain printable ASCII strings. false: not that shape, use
// encoding/json.
func parseVerdictFast(b []byte, req *VerdictRequest) bool {
	p := fastParser{b: b}
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return p.end()
	}
	var seen [4]bool // a repeated key is for the full checks (400)
	for {
		key, ok := p.str()
		if !ok || !p.byte(':') {
			return false
		}
		k := 3
		switch string(key) {
		case "tenantId":
			k = 0
		case "agentId":
			k = 1
		case "method":
			k = 2
		}
		if seen[k] {
			return false
		}
		seen[k] = true
		switch string(key) {
		case "tenantId", "agentId", "method":
			v, ok := p.str()
			if !ok {
				return false
			}
			switch string(key) {
			case "tenantId":
				req.TenantID = string(v)
			case "agentId":
				req.AgentID = string(v)
			default:
				req.Method = string(v)
			}
		case "shadow":
			p.ws()
			switch {
			case bytes.HasPrefix(p.b[p.i:], []byte("true")):
				req.Shadow, p.i = true, p.i+4
			case bytes.HasPrefix(p.b[p.i:], []byte("false")):
				req.Shadow, p.i = false, p.i+5
			default:
				return false
			}
		default:
			return false
		}
		if p.byte(',') {
			continue
		}
		return p.byte('}') && p.end()
	}
}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) byte(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *fastParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// str reads a string of at most maxFastID bytes of printable ASCII without
// escapes, '<' or '>' (ids: anything else is for the full checks).
func (p *fastParser) str() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) && p.i-start <= maxFastID {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c < 0x20 || c > 0x7e || c == '\\' || c == '<' || c == '>':
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// maxFastID is the longest string the fast path takes.
const maxFastID = 256

// writeVerdict answers 200 with v, byte for byte what writeJSON would write.
func writeVerdict(w http.ResponseWriter, v *VerdictResponse) {
	m := math.Abs(v.Multiplier)
	if !verdictFastPath || !plain(v.TenantID) || !plain(v.AgentID) || !plain(string(v.Tier)) || !plain(string(v.EffectiveTier)) ||
		!plain(v.Action) || !plain(v.Reason) || (m != 0 && (m < 1e-6 || m >= 1e21)) || math.IsNaN(m) || math.IsInf(m, 0) {
		writeJSON(w, http.StatusOK, v)
		return
	}
	bp := outBufs.Get().(*[]byte)
	b := (*bp)[:0]
	b = append(b, `{"tenantId":"`...)
	b = append(b, v.TenantID...)
	b = append(b, `","agentId":"`...)
	b = append(b, v.AgentID...)
	b = append(b, `","score":`...)
	b = strconv.AppendInt(b, int64(v.Score), 10)
	b = append(b, `,"scored":`...)
	b = strconv.AppendBool(b, v.Scored)
	b = append(b, `,"tier":"`...)
	b = append(b, v.Tier...)
	b = append(b, `","effectiveTier":"`...)
	b = append(b, v.EffectiveTier...)
	b = append(b, `","action":"`...)
	b = append(b, v.Action...)
	b = append(b, `","reason":"`...)
	b = append(b, v.Reason...)
	b = append(b, `","multiplier":`...)
	b = strconv.AppendFloat(b, v.Multiplier, 'f', -1, 64)
	b = append(b, `,"shadow":`...)
	b = strconv.AppendBool(b, v.Shadow)
	b = append(b, `,"loggedOnly":`...)
	b = strconv.AppendBool(b, v.LoggedOnly)
	b = append(b, "}\n"...)
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	*bp = b
	outBufs.Put(bp)
}

// plain: printable ASCII that JSON writes as is (encoding/json with
// SetEscapeHTML(false) escapes only '"', '\\' and control characters there).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
