package agentleak

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A trace line is decoded by a small hand-written parser that knows the
// trace layout: strings without escapes share the line's bytes, content
// stays a raw span, and everything else is skipped after a syntax check.
// Anything it does not expect (a wrong type, an escaped key, odd
// spacing of keys) makes it give up, and encoding/json decodes the line
// instead, with its located messages. It is several times faster than
// encoding/json on traces and allocates little.

type fastParser struct {
	b       []byte
	i       int
	scratch *[]Event // reused list the events are read into (nil: none)
}

// fastDecodeTrace decodes data (which it keeps: the caller must not reuse
// it) and reports false when the slow path must decide; scratch, when not
// nil, is a list of events it may reuse from call to call.
func fastDecodeTrace(data []byte, t *Trace, scratch *[]Event) bool {
	p := fastParser{b: data, scratch: scratch}
	p.ws()
	ok := p.object(func(key string) bool {
		switch key {
		case "run_id":
			return p.strOrNull(&t.RunID)
		case "agent_name":
			return p.strOrNull(&t.AgentName)
		case "scenario_id":
			return p.strOrNull(&t.ScenarioID)
		case "timestamp":
			return p.strOrNull(&t.Timestamp)
		case "events":
			return p.events(t)
		}
		if foldsToKnown(key, "run_id", "agent_name", "scenario_id", "timestamp", "events") {
			return false
		}
		return p.skip(0)
	})
	return ok && p.end()
}

// object reads one object, calling member with each key once the parser
// stands on its value; member reads the value and reports success.
func (p *fastParser) object(member func(key string) bool) bool {
	if !p.eat('{') {
		return false
	}
	p.ws()
	if p.eat('}') {
		return true
	}
	for {
		p.ws()
		key, ok := p.key()
		if !ok {
			return false
		}
		p.ws()
		if !p.eat(':') {
			return false
		}
		p.ws()
		if !member(key) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		return p.eat('}')
	}
}

func foldsToKnown(key string, known ...string) bool {
	for _, k := range known {
		if len(k) == len(key) && bytes.EqualFold([]byte(k), []byte(key)) {
			return true
		}
	}
	return false
}

func (p *fastParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

func (p *fastParser) events(t *Trace) bool {
	if p.lit("null") {
		t.Events = nil
		return true
	}
	if !p.eat('[') {
		return false
	}
	// Not nil: `events: []` is a trace with no events, not a missing key.
	t.Events = []Event{}
	p.ws()
	if p.eat(']') {
		return true
	}
	// The events are read into the reader's scratch list and copied into
	// one slice of their number: growing a slice per trace, or guessing
	// its size, was a share of the garbage.
	var local []Event
	evs := &local
	if p.scratch != nil {
		evs = p.scratch
	}
	*evs = (*evs)[:0]
	for {
		p.ws()
		*evs = append(*evs, Event{})
		if !p.event(&(*evs)[len(*evs)-1]) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		t.Events = append(make([]Event, 0, len(*evs)), *evs...)
		clear(*evs) // keep no earlier trace alive
		return p.eat(']')
	}
}

func (p *fastParser) event(e *Event) bool {
	return p.object(func(key string) bool {
		switch key {
		case "event_id":
			return p.strOrNull(&e.EventID)
		case "channel":
			return p.strOrNull(&e.Channel)
		case "source":
			return p.strOrNull(&e.Source)
		case "target":
			return p.strOrNull(&e.Target)
		case "content":
			s := p.i
			ok := p.skip(0)
			e.Content = json.RawMessage(p.b[s:p.i:p.i])
			return ok
		}
		if foldsToKnown(key, "event_id", "channel", "source", "target", "content") {
			return false
		}
		return p.skip(0)
	})
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

func (p *fastParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *fastParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// key reads an object key; escaped keys go to the slow path.
func (p *fastParser) key() (string, bool) {
	s, esc, ok := p.strSpan()
	if !ok || esc {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(p.b[s+1:]), p.i-1-(s+1)), true
}

func (p *fastParser) strOrNull(dst *string) bool {
	if p.lit("null") {
		*dst = ""
		return true
	}
	s, esc, ok := p.strSpan()
	if !ok {
		return false
	}
	if !esc {
		body := p.b[s+1 : p.i-1]
		switch {
		case len(body) == 0:
			*dst = ""
		case !utf8.Valid(body):
			*dst = validUTF8(body)
		default:
			*dst = unsafe.String(&body[0], len(body))
		}
		return true
	}
	v, ok := unquote(p.b[s:p.i])
	*dst = v
	return ok
}

// strSpan checks the string starting at p.i and moves past it; esc tells
// whether it holds escapes.
func (p *fastParser) strSpan() (start int, esc, ok bool) {
	start = p.i
	if !p.eat('"') {
		return start, false, false
	}
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return start, esc, true
		case c == '\\':
			esc = true
			if p.i+1 >= len(p.b) {
				return start, esc, false
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.b) {
					return start, esc, false
				}
				for _, h := range p.b[p.i+2 : p.i+6] {
					if !(isDigit(h) || (h|0x20)-'a' < 6) {
						return start, esc, false
					}
				}
				p.i += 6
			default:
				return start, esc, false
			}
		case c < 0x20:
			return start, esc, false
		default:
			// Jump to the next quote, backslash or control character.
			p.i = plainRun(p.b, p.i+1)
		}
	}
	return start, esc, false
}

// plainRun returns the index of the first byte from i on that a JSON
// string does not hold as it is (see strPlain), or len(b): eight bytes at a
// time while a word holds none, then byte by byte.
func plainRun(b []byte, i int) int {
	for i+8 <= len(b) && !specialInWord(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for i < len(b) && strPlain[b[i]] {
		i++
	}
	return i
}

// specialInWord reports whether one of the eight bytes of w is a quote, a
// backslash or below 0x20. Each test is the exact "some byte is zero" /
// "some byte is below n" bit trick (a borrow can only set a flag above a
// byte that already matched), so a word without such a byte is never
// reported.
func specialInWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q-ones)&^q|(bs-ones)&^bs|(w-ones*0x20)&^w)&highs != 0
}

// strPlain marks the bytes a JSON string holds as they are (not a quote,
// a backslash or a control character).
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skip moves past one JSON value, checking its syntax.
func (p *fastParser) skip(depth int) bool {
	if depth > 512 || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, _, ok := p.strSpan()
		return ok
	case c == '{':
		p.i++
		p.ws()
		if p.eat('}') {
			return true
		}
		for {
			p.ws()
			if _, _, ok := p.strSpan(); !ok {
				return false
			}
			p.ws()
			if !p.eat(':') {
				return false
			}
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat('}')
		}
	case c == '[':
		p.i++
		p.ws()
		if p.eat(']') {
			return true
		}
		for {
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(',') {
				continue
			}
			return p.eat(']')
		}
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || isDigit(c):
		s := p.i
		for p.i < len(p.b) && (isDigit(p.b[p.i]) || p.b[p.i] == '-' || p.b[p.i] == '+' || p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
			p.i++
		}
		return json.Valid(p.b[s:p.i])
	}
	return false
}

// unquote decodes a JSON string literal (quotes included) that strSpan or
// encoding/json already checked; ok is false on a malformed escape.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	out, ok := unquoteTo(make([]byte, 0, len(raw)-2), raw)
	if !ok {
		return "", false
	}
	if !utf8.Valid(out) {
		return validUTF8(out), true
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// unquoteTo appends the bytes of the JSON string literal raw (quotes
// included) to out, escapes decoded; ok is false on a malformed escape.
// The bytes may not be valid UTF-8.
func unquoteTo(out, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			out = append(out, s[i:]...)
			break
		}
		out = append(out, s[i:i+j]...)
		i += j
		if i+1 >= len(s) {
			return nil, false
		}
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return nil, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return nil, false
		}
		i += 2
	}
	return out, true
}

// validUTF8 replaces every byte of an invalid UTF-8 sequence with U+FFFD,
// as encoding/json does.
func validUTF8(b []byte) string {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return string(out)
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, h := range s[i : i+4] {
		switch {
		case isDigit(h):
			r = r<<4 | rune(h-'0')
		case (h|0x20)-'a' < 6:
			r = r<<4 | rune((h|0x20)-'a'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
