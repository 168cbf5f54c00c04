package agentrisk

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
	"github.com/lfcli/lf/pkg/kind"
)

// fastDecoder decodes the usual shape of an event line without
// encoding/json: one flat object of the known fields, strings without
// escapes, plain numbers, a UTC timestamp. Anything else (escapes, unknown
// fields that are not plain scalars, duplicate keys, null, offsets, a
// problem of any kind) makes decode return false, and the caller decodes the
// line with decodeEvent, which gives the same Event for valid input and the
// located problems for bad input. TestFastDecoderAgrees checks the two agree.
//
// With volatile set the event's strings alias the line and InjectionScore
// points into the decoder: nothing is allocated, and the event is valid only
// until the next decode (the ingester copies what it keeps).
type fastDecoder struct {
	volatile bool
	score    float64

	tsPrefix [14]byte // "2006-01-02T15:" of tsBase
	tsBase   time.Time
	tsOK     bool
}

func newFastDecoder(volatile bool) *fastDecoder {
	return &fastDecoder{volatile: volatile}
}

const (
	fTimestamp = 1 << iota
	fTenant
	fAgent
	fName
	fSession
	fMethod
	fTool
	fResource
	fHighImpact
	fDecision
	fRule
	fInjection
	fRequest
)

var eventFields = []string{"timestamp", "tenant_id", "agent_id", "agent_name", "session_id", "method", "tool", "resource", "high_impact", "decision", "rule", "injection_score", "request_id"}

// decode fills ev from line, or returns false when the line needs
// decodeEvent.
func (d *fastDecoder) decode(line []byte, ev *Event) bool {
	*ev = Event{}
	p := jsonlex.SkipSpace(line, 0)
	if p >= len(line) || line[p] != '{' {
		return false
	}
	p++
	var seen int
	next := 0 // the fields are looked for in their usual order from here
	for {
		p = jsonlex.SkipSpace(line, p)
		if p >= len(line) || line[p] != '"' {
			return false
		}
		f, key, after, q, ok := readKey(line, p, next)
		if !ok {
			return false
		}
		next, p = after, jsonlex.SkipSpace(line, q)
		if p >= len(line) {
			return false
		}
		if f == 0 {
			// An unknown field: encoding/json ignores it unless it matches a
			// known one without regard to case.
			for _, name := range eventFields {
				if strings.EqualFold(name, unsafeString(key)) {
					return false
				}
			}
			if p = skipScalar(line, p); p < 0 {
				return false
			}
		} else {
			if seen&f != 0 {
				return false
			}
			seen |= f
			if p, ok = d.value(line, p, f, ev); !ok {
				return false
			}
		}
		p = jsonlex.SkipSpace(line, p)
		if p >= len(line) {
			return false
		}
		if line[p] == '}' {
			p++
			break
		}
		if line[p] != ',' {
			return false
		}
		p++
	}
	if jsonlex.SkipSpace(line, p) != len(line) || seen&(fTimestamp|fTenant|fAgent) != fTimestamp|fTenant|fAgent {
		return false
	}
	if ev.Decision == "" {
		ev.Decision = "allow"
	}
	return true
}

// keyLits are the keys of eventFields as they usually come: "name":
var keyLits = func() (l [13]string) {
	for i, name := range eventFields {
		l[i] = `"` + name + `":`
	}
	return l
}()

// knownKey matches the usual text of a known key at line[p:], trying the
// fields from next on (lines list them in one order, some left out). It
// returns the field, where to look next and the position after the colon,
// or 0, next and p when no key matches.
func knownKey(line []byte, p, next int) (f, after, end int) {
	for i := next; i < len(keyLits); i++ {
		if jsonlex.Lit(line, p, keyLits[i]) {
			return 1 << i, i + 1, p + len(keyLits[i])
		}
	}
	return 0, next, p
}

// readKey reads the key at line[p] == '"' and the colon after it: its
// field (0 for an unknown key, then given), where to look for the next
// known key, and the position after the colon.
func readKey(line []byte, p, next int) (f int, key []byte, after, end int, ok bool) {
	if f, after, end = knownKey(line, p, next); f != 0 {
		return f, nil, after, end, true
	}
	key, q, ok := jsonlex.PlainString(line, p)
	if !ok {
		return 0, nil, next, p, false
	}
	q = jsonlex.SkipSpace(line, q)
	if q >= len(line) || line[q] != ':' {
		return 0, nil, next, p, false
	}
	return fieldBit(key), key, next, q + 1, true
}

func fieldBit(key []byte) int {
	switch string(key) {
	case "timestamp":
		return fTimestamp
	case "tenant_id":
		return fTenant
	case "agent_id":
		return fAgent
	case "agent_name":
		return fName
	case "session_id":
		return fSession
	case "method":
		return fMethod
	case "tool":
		return fTool
	case "resource":
		return fResource
	case "high_impact":
		return fHighImpact
	case "decision":
		return fDecision
	case "rule":
		return fRule
	case "injection_score":
		return fInjection
	case "request_id":
		return fRequest
	}
	return 0
}

func (d *fastDecoder) value(line []byte, p, f int, ev *Event) (int, bool) {
	switch f {
	case fHighImpact:
		switch {
		case jsonlex.Lit(line, p, "true"):
			ev.HighImpact = true
			return p + 4, true
		case jsonlex.Lit(line, p, "false"):
			return p + 5, true
		}
		return p, false
	case fInjection:
		end := jsonlex.NumberEnd(line, p)
		if end < 0 {
			return p, false
		}
		v, ok := parseScore(line[p:end])
		if !ok || math.IsNaN(v) || v < 0 || v > 1 {
			return p, false
		}
		if d.volatile {
			d.score = v
			ev.InjectionScore = &d.score
		} else {
			ev.InjectionScore = &v
		}
		return end, true
	}
	if line[p] != '"' {
		return p, false
	}
	s, end, ok := jsonlex.PlainString(line, p)
	if !ok {
		return p, false
	}
	switch f {
	case fTimestamp:
		t, ok := d.timestamp(s)
		if !ok {
			return p, false
		}
		ev.Timestamp = t
	case fTenant, fAgent:
		if !validID(s) {
			return p, false
		}
		id := d.str(s)
		if f == fTenant {
			ev.TenantID = id
		} else {
			ev.AgentID = id
		}
	case fDecision:
		switch string(s) {
		case "allow":
			ev.Decision = "allow"
		case "deny":
			ev.Decision = "deny"
		case "":
		default:
			return p, false
		}
	case fName:
		ev.AgentName = d.str(s)
	case fSession:
		ev.SessionID = d.str(s)
	case fMethod:
		ev.Method = d.str(s)
	case fTool:
		ev.Tool = d.str(s)
	case fRule:
		ev.Rule = d.str(s)
	case fResource:
		ev.Resource = d.str(s)
	case fRequest:
		ev.RequestID = d.str(s)
	}
	return end, true
}

func (d *fastDecoder) str(b []byte) string {
	if d.volatile {
		return unsafeString(b)
	}
	return string(b)
}

// validID is what decodeEvent checks of a tenant or agent id: not blank,
// and kind.CheckID, done here without allocating for ASCII ids.
func validID(b []byte) bool {
	blank := true
	for _, c := range b {
		switch {
		case c >= 0x80:
			id := string(b)
			return strings.TrimSpace(id) != "" && kind.CheckID("id", id) == nil
		case c == '/' || c == '\\' || c < 0x20 || c == 0x7f:
			return false
		case c != ' ':
			blank = false
		}
	}
	return !blank && len(b) <= kind.MaxIDLength && string(b) != "." && string(b) != ".."
}

// timestamp parses "2006-01-02T15:04:05[.fraction]Z" as time.Parse with
// time.RFC3339Nano would; the date and hour come from time.Parse, cached.
func (d *fastDecoder) timestamp(s []byte) (time.Time, bool) {
	if len(s) < 20 || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	if !d.tsOK || string(s[:14]) != string(d.tsPrefix[:]) {
		t, err := time.Parse(time.RFC3339, string(s[:14])+"00:00Z")
		if err != nil {
			return time.Time{}, false
		}
		copy(d.tsPrefix[:], s[:14])
		d.tsBase, d.tsOK = t.UTC(), true
	}
	mm, ok1 := twoDigits(s[14:16])
	ss, ok2 := twoDigits(s[17:19])
	if !ok1 || !ok2 || mm > 59 || ss > 59 {
		return time.Time{}, false
	}
	ns := 0
	switch rest := s[19 : len(s)-1]; {
	case len(rest) == 0:
	case rest[0] != '.' || len(rest) < 2 || len(rest) > 10:
		return time.Time{}, false
	default:
		for i := 1; i < 10; i++ {
			ns *= 10
			if i < len(rest) {
				c := rest[i]
				if c < '0' || c > '9' {
					return time.Time{}, false
				}
				ns += int(c - '0')
			}
		}
	}
	return d.tsBase.Add(time.Duration(mm)*time.Minute + time.Duration(ss)*time.Second + time.Duration(ns)), true
}

func twoDigits(b []byte) (int, bool) {
	if b[0] < '0' || b[0] > '9' || b[1] < '0' || b[1] > '9' {
		return 0, false
	}
	return int(b[0]-'0')*10 + int(b[1]-'0'), true
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseScore converts a JSON number as strconv.ParseFloat does: digits with
// an optional fraction and at most 15 significant digits are exact
// integers divided by an exact power of ten, so one correctly rounded
// division gives the same float64; anything else goes to strconv.
func parseScore(b []byte) (float64, bool) {
	var m uint64
	digits, frac := 0, -1
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && frac < 0:
			frac = i
		default:
			digits = 99 // exponent or sign: let strconv do it
		}
	}
	if digits <= 15 {
		k := 0
		if frac >= 0 {
			k = len(b) - frac - 1
		}
		return float64(m) / pow10[k], true
	}
	v, err := strconv.ParseFloat(unsafeString(b), 64)
	return v, err == nil
}

// unsafeString views b as a string without copying; the string must not
// outlive b's contents.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// skipScalar skips a plain string, a number, true, false or null: the
// index after it, or a negative result.
func skipScalar(b []byte, p int) int {
	switch c := b[p]; {
	case c == '"':
		_, end, ok := jsonlex.PlainString(b, p)
		if !ok {
			return -1
		}
		return end
	case c == '-' || jsonlex.IsDigit(c):
		return jsonlex.NumberEnd(b, p)
	}
	return jsonlex.LitEnd(b, p)
}
