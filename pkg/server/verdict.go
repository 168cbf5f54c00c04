package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// The fast path of POST /verdict. A verdict costs a few microseconds of
// work; encoding/json, io.ReadAll and the response buffer made most of the
// allocations of a request (about 2 KB of the 3.2 KB per request, see
// docs/performance.md), and allocations are what the garbage collector pauses for. The
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

// contentLengths holds the Content-Length header values of short answers,
// shared so that setting the header allocates nothing (net/http only reads
// them).
var contentLengths = func() [][]string {
	t := make([][]string, 2048)
	for i := range t {
		t[i] = []string{strconv.Itoa(i)}
	}
	return t
}()

// verdictRoute sends POST /verdict, the hot path of a gateway, straight to
// its handler: no second mux, no request copy to carry the principal in a
// context (each cost allocations per request). Everything else goes to
// next.
func (s *Server) verdictRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/verdict" {
			next.ServeHTTP(w, r)
			return
		}
		if p, ok := s.principal(w, r); ok {
			s.verdictAs(w, r, p)
		}
	})
}

// verdictAs answers POST /verdict for principal p. Isolation first: a
// tenant the key may not see is 404 before the role is checked (403).
func (s *Server) verdictAs(w http.ResponseWriter, r *http.Request, p Principal) {
	buf := verdictBufs.Get().(*[maxFastBody]byte)
	defer verdictBufs.Put(buf)
	req, agentRaw, ok := s.decodeVerdict(w, r, buf, p)
	if !ok || !checkVerdict(w, &req, agentRaw, p) {
		return
	}
	cfg, err := s.state.config(r.Context(), req.TenantID)
	if err != nil {
		s.writeEngineErrorAs(w, r, p.Name, err)
		return
	}
	agent, err := s.state.agentBytes(r.Context(), req.TenantID, agentRaw, req.AgentID)
	if err != nil {
		s.writeEngineErrorAs(w, r, p.Name, err)
		return
	}
	if agentRaw != nil {
		req.AgentID = agent.state.AgentID // the cached entry's string: no allocation
		if req.AgentID != string(agentRaw) {
			req.AgentID = string(agentRaw)
		}
	}
	now := s.now()
	st := agent.state
	if !st.TierSince.IsZero() {
		// Decide only compares the time in tier with the grace period;
		// nil means long ago, so the pointer (an allocation) is only
		// needed within the grace period.
		if sec := now.Sub(st.TierSince).Seconds(); sec < float64(cfg.GracePeriodSeconds) {
			inTier := sec
			st.SecondsInTier = &inTier
		}
	}
	window, limit := 0, 0
	if cfg.RateLimit != nil {
		window, limit = cfg.RateLimit.WindowSeconds, cfg.RateLimit.Limit
	}
	var d agentrisk.Decision
	s.limiter.do(req.TenantID, window, limit, now, func(used int) bool {
		d = agentrisk.Decide(cfg, st, agentrisk.Request{Method: req.Method, Shadow: req.Shadow}, used)
		return !(d.Action == agentrisk.ActionBlock && d.Reason == agentrisk.ReasonRateLimit)
	})
	writeVerdict(w, &VerdictResponse{TenantID: req.TenantID, AgentID: req.AgentID, Score: st.Score, Scored: agent.known, Decision: d})
}

// checkVerdict checks the required fields, then the tenant (404), then the
// role (403); false when it answered. agentRaw, when not nil, is the agent
// id of the fast path (req.AgentID is empty then).
func checkVerdict(w http.ResponseWriter, req *VerdictRequest, agentRaw []byte, p Principal) bool {
	agentBlank := strings.TrimSpace(req.AgentID) == "" && len(bytes.TrimSpace(agentRaw)) == 0
	for _, f := range []struct {
		blank bool
		name  string
	}{{strings.TrimSpace(req.TenantID) == "", "tenantId"}, {agentBlank, "agentId"}, {strings.TrimSpace(req.Method) == "", "method"}} {
		if f.blank {
			writeError(w, http.StatusBadRequest, "invalid verdict request: /"+f.name+" is required", "/"+f.name)
			return false
		}
	}
	if !p.CanAccess(req.TenantID) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("tenant %q not found", req.TenantID), "/tenantId")
		return false
	}
	if need := roleOf("POST /verdict"); !p.Allows(need) {
		writeForbidden(w, p, need)
		return false
	}
	return true
}

// decodeVerdict reads and checks the body of POST /verdict into buf; false
// when it already answered with an error. On the fast path the agent id is
// returned as agentRaw (a slice of buf) and req.AgentID is empty, so that
// a cached agent is found without allocating; the tenant and the method
// are interned.
func (s *Server) decodeVerdict(w http.ResponseWriter, r *http.Request, buf *[maxFastBody]byte, p Principal) (req VerdictRequest, agentRaw []byte, ok bool) {
	n := r.ContentLength
	if !verdictFastPath || n <= 0 || n > maxFastBody || n > s.cfg.MaxBodyBytes || !jsonOrNoType(r) {
		b, ok := s.readJSONBody(w, r, maxSmallBody, verdictShape, false)
		if !ok {
			return req, nil, false
		}
		req, ok = decodeVerdictJSON(w, b)
		return req, nil, ok
	}
	if _, err := io.ReadFull(r.Body, buf[:n]); err != nil {
		if isTimeout(err) { // the server's readTimeout (limits.go)
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestTimeout, "body not received in time", "")
			return req, nil, false
		}
		writeError(w, http.StatusBadRequest, "cannot read body: "+err.Error(), "")
		return req, nil, false
	}
	var raw verdictRaw
	if parseVerdictFast(buf[:n], &raw) {
		req.TenantID = p.Tenant
		if string(raw.tenant) != p.Tenant {
			req.TenantID = string(raw.tenant)
		}
		req.Method, req.Shadow = internMethod(raw.method), raw.shadow
		return req, raw.agent, true
	}
	if be := scanBody(buf[:n], verdictShape, false); be != nil { // body.go: the checks of every body
		writeError(w, http.StatusBadRequest, "invalid body: "+be.Error(), be.Pointer)
		return req, nil, false
	}
	req, ok = decodeVerdictJSON(w, buf[:n])
	return req, nil, ok
}

// decodeVerdictJSON decodes a checked body with encoding/json.
func decodeVerdictJSON(w http.ResponseWriter, b []byte) (VerdictRequest, bool) {
	var req VerdictRequest
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

// internMethod returns the MCP methods gateways send most as constant
// strings (no allocation), anything else as a new string.
func internMethod(b []byte) string {
	switch string(b) {
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "resources/read":
		return "resources/read"
	case "resources/list":
		return "resources/list"
	case "prompts/get":
		return "prompts/get"
	case "prompts/list":
		return "prompts/list"
	case "initialize":
		return "initialize"
	case "ping":
		return "ping"
	}
	return string(b)
}

// jsonOrNoType: the request has no Content-Type or exactly application/json.
func jsonOrNoType(r *http.Request) bool {
	ct := r.Header["Content-Type"]
	return len(ct) == 0 || (len(ct) == 1 && ct[0] == "application/json")
}

// verdictRaw is a verdict body as parsed by the fast path: the strings are
// slices of the body (nil: the key is absent).
type verdictRaw struct {
	tenant, agent, method []byte
	shadow                bool
}

// parseVerdictFast parses {"tenantId": "...", "agentId": "...", "method":
// "...", "shadow": true|false} (any order, any subset, JSON whitespace)
// with plain printable ASCII strings. false: not that shape, use
// encoding/json.
func parseVerdictFast(b []byte, req *verdictRaw) bool {
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
			switch k {
			case 0:
				req.tenant = v
			case 1:
				req.agent = v
			default:
				req.method = v
			}
		case "shadow":
			p.ws()
			switch {
			case jsonlex.Lit(p.b, p.i, "true"):
				req.shadow, p.i = true, p.i+4
			case jsonlex.Lit(p.b, p.i, "false"):
				req.shadow, p.i = false, p.i+5
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

// ws is a plain loop rather than jsonlex.SkipSpace, whose one-space case
// would make byte and end too costly to inline.
func (p *fastParser) ws() {
	for p.i < len(p.b) && jsonlex.IsSpace(p.b[p.i]) {
		p.i++
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
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false
	}
	e := jsonlex.PlainEnd(p.b, p.i+1)
	if e < 0 || e-(p.i+1) > maxFastID {
		return nil, false
	}
	s := p.b[p.i+1 : e]
	for _, c := range s {
		if c == 0x7f || c == '<' || c == '>' {
			return nil, false
		}
	}
	p.i = e + 1
	return s, true
}

// maxFastID is the longest string the fast path takes.
const maxFastID = 256

// writeVerdict answers 200 with v, byte for byte what writeJSON would write.
func writeVerdict(w http.ResponseWriter, v *VerdictResponse) {
	m := math.Abs(v.Multiplier)
	if !verdictFastPath || !plain(v.TenantID) || !plain(v.AgentID) || !plain(string(v.Tier)) || !plain(string(v.EffectiveTier)) ||
		!plain(v.Action) || !plain(v.Reason) || (m != 0 && (m < 1e-6 || m >= 1e21)) || math.IsNaN(m) || math.IsInf(m, 0) {
		writeJSON(w, http.StatusOK, *v) // a copy: v itself stays on the caller's stack
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
	if len(b) < len(contentLengths) {
		h["Content-Length"] = contentLengths[len(b)]
	} else {
		h["Content-Length"] = []string{strconv.Itoa(len(b))}
	}
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
