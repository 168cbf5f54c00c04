package otelspans

import (
	"bytes"
	"encoding/base64"
	"hash/maphash"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// fastOTLP decodes one OTLP JSON document of the usual shape into the
// spans FromPdata would list for it, without building pdata's model first.
// pdata stays the reference: ok is false on anything the fast path does
// not read exactly as pdata does (snake_case keys, unknown or repeated
// fields, links, enums by name, numbers written other than as lf expects,
// escapes in keys, ids or base64, lone surrogate escapes, invalid UTF-8,
// control characters, deep nesting, bad syntax, trailing data), and the
// caller decodes the document with pdata then. TestFastOTLPMatchesPdata
// and FuzzFastOTLP hold the two to the same output. c is what the
// decoder keeps from its earlier documents: their short strings, and room
// for spans and lists (nil: none).
func fastOTLP(doc []byte, line int, c *strCache) (spans []*Span, ok bool) {
	d := fastDec{b: doc, line: line, c: c}
	if c != nil {
		// The stack of pairs is the decoder's, left empty by each
		// document, and so is the room left in its slabs.
		d.pairs, d.spans, d.slab, d.unq = c.pairs[:0], c.spans, c.slab, c.unq
		defer func() { c.pairs, c.spans, c.slab, c.unq = d.pairs[:0], d.spans, d.slab, d.unq }()
	}
	d.i = jsonlex.SkipSpace(doc, 0)
	if !d.object(func(key string) bool {
		if key != "resourceSpans" {
			return false
		}
		return d.array(d.resourceSpans)
	}) {
		return nil, false
	}
	if jsonlex.SkipSpace(doc, d.i) != len(doc) {
		return nil, false
	}
	return d.out, true
}

// fastDec is the state of fastOTLP over one document.
type fastDec struct {
	b     []byte
	i     int
	line  int
	depth int
	c     *strCache
	pairs []KV   // the pairs of the lists being read (a stack)
	slab  []KV   // room for the lists read
	spans []Span // room for the spans
	out   []*Span
	res   *Attrs // the attributes of the resource being read
	unq   []byte // room for the text of a string with escapes
}

// maxFastDepth is the deepest nesting of attribute values the fast path
// follows; deeper documents go to pdata.
const maxFastDepth = 64

// object reads an object at d.i whose keys are plain, distinct and not
// empty, handing each key to fn with d.i at its value; fn reads the value
// or returns false.
func (d *fastDec) object(fn func(key string) bool) bool {
	b := d.b
	if d.i >= len(b) || b[d.i] != '{' {
		return false
	}
	d.depth++
	if d.depth > maxFastDepth {
		return false
	}
	var seen uint64
	d.i = jsonlex.SkipSpace(b, d.i+1)
	if d.i < len(b) && b[d.i] == '}' {
		d.i++
		d.depth--
		return true
	}
	for {
		if d.i >= len(b) || b[d.i] != '"' {
			return false
		}
		k, end, ok := jsonlex.PlainString(b, d.i)
		if !ok || len(k) == 0 {
			return false
		}
		key := unsafe.String(unsafe.SliceData(k), len(k)) // valid while fn runs
		// A repeated key goes to pdata; so does, rarely, a key whose bit
		// another key of the object shares (none of the known keys of an
		// object do: TestFastKeyBits).
		bit := uint64(1) << (keyBit(key) & 63)
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		d.i = jsonlex.SkipSpace(b, end)
		if d.i >= len(b) || b[d.i] != ':' {
			return false
		}
		d.i = jsonlex.SkipSpace(b, d.i+1)
		if !fn(key) {
			return false
		}
		n, more := jsonlex.Next(b, d.i, '}')
		if n < 0 {
			return false
		}
		d.i = n
		if !more {
			d.depth--
			return true
		}
	}
}

// keyBit is the bit of a key in an object's set of keys read.
func keyBit(key string) uint {
	return uint(3*len(key) + 5*int(key[0]) + 7*int(key[len(key)-1]))
}

// array reads an array at d.i, fn reading each element.
func (d *fastDec) array(fn func() bool) bool {
	b := d.b
	if d.i >= len(b) || b[d.i] != '[' {
		return false
	}
	d.i = jsonlex.SkipSpace(b, d.i+1)
	if d.i < len(b) && b[d.i] == ']' {
		d.i++
		return true
	}
	for {
		if !fn() {
			return false
		}
		n, more := jsonlex.Next(b, d.i, ']')
		if n < 0 {
			return false
		}
		d.i = n
		if !more {
			return true
		}
	}
}

// str reads a string: escapes decoded (not surrogate ones), valid UTF-8,
// no control characters; the text allocated on its own.
func (d *fastDec) str() (string, bool) {
	b := d.b
	if d.i >= len(b) || b[d.i] != '"' {
		return "", false
	}
	if i := jsonlex.NextSpecial(b, d.i+1, jsonlex.HighBits); i < len(b) {
		switch b[i] {
		case '"':
			// Plain ASCII, most strings.
			body := b[d.i+1 : i]
			d.i = i + 1
			if len(body) <= maxCached {
				return d.c.str(body), true
			}
			return string(body), true
		case '\\':
			if s, ok, done := d.unquote(i); done {
				return s, ok
			}
		}
	}
	e, fl := jsonlex.StringEnd(b, d.i+1, jsonlex.HighBits)
	if e < 0 {
		return "", false
	}
	body := b[d.i+1 : e]
	if fl&jsonlex.StrHigh != 0 && !utf8.Valid(body) {
		return "", false
	}
	d.i = e + 1
	if fl&jsonlex.StrEsc == 0 {
		if len(body) <= maxCached {
			return d.c.str(body), true
		}
		return string(body), true
	}
	// Each string is allocated on its own: a run id or a finding kept
	// after the scan must not keep the whole document's text alive.
	out, ok := jsonlex.UnquoteTo(make([]byte, 0, len(body)+8), b[e-len(body)-1:e+1])
	if !ok {
		return "", false
	}
	// UnquoteTo writes a surrogate escape that is not half of a pair as
	// U+FFFD (EF BF BD), so only text with a 0xEF byte needs the search
	// for one, which stops at every backslash.
	if bytes.IndexByte(out, 0xef) >= 0 && surrogateEscape(body) {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// maxUnquote is the most room unquote takes for the rest of a document
// (a variable for the tests).
var maxUnquote = 1 << 20

// unquote is str for the string at d.i whose first special byte is the
// backslash at b[i]: its text is decoded while it is checked, into the
// decoder's buffer, then copied into a string of its own, rather than
// checked by StringEnd and then decoded by UnquoteTo into a new slice,
// which is cleared first. done is false when it leaves the string to
// str's other path (a document too long for the buffer).
func (d *fastDec) unquote(i int) (s string, ok, done bool) {
	b := d.b
	st := d.i + 1
	// UnquoteRun needs room for the rest of b and a word: decoding never
	// makes text longer.
	need := len(b) - st + 8
	if need > maxUnquote {
		return "", false, false
	}
	if cap(d.unq) < need {
		d.unq = make([]byte, max(need, 4<<10))
	}
	out := d.unq[:cap(d.unq)]
	o := copy(out, b[st:i])
	e, o := jsonlex.UnquoteRun(b, out, i, o)
	if e < 0 {
		return "", false, true
	}
	if b[e] != '"' {
		// A byte above 0x7f: the rest is decoded with them, and the text
		// checked as UTF-8 at the end. The escapes decode to whole
		// characters, so the text is valid UTF-8 when the string's bytes
		// are, and only then.
		if e, o = jsonlex.UnquoteRunHigh(b, out, e, o); e < 0 || !utf8.Valid(out[:o]) {
			return "", false, true
		}
	}
	text := out[:o]
	// UnquoteRun writes a surrogate escape that is not half of a pair as
	// U+FFFD (EF BF BD), so only text with a 0xEF byte needs the search
	// for one, which stops at every backslash.
	if bytes.IndexByte(text, 0xef) >= 0 && surrogateEscape(b[st:e]) {
		return "", false, true
	}
	d.i = e + 1
	// The string is allocated on its own: a run id or a finding kept
	// after the scan must not keep the whole document's text alive.
	return string(text), true, true
}

// surrogateEscape tells whether a string body (escapes checked) holds a
// \u escape of a UTF-16 surrogate that is not half of a pair, which
// decoders treat differently.
func surrogateEscape(body []byte) bool {
	for i := 0; i+1 < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if body[i+1] != 'u' {
			i++
			continue
		}
		r, ok := jsonlex.Hex4(body, i+2)
		if !ok {
			return true
		}
		i += 5
		if !utf16.IsSurrogate(r) {
			continue
		}
		if r >= 0xdc00 || i+6 >= len(body) || body[i+1] != '\\' || body[i+2] != 'u' {
			return true
		}
		r2, ok := jsonlex.Hex4(body, i+3)
		if !ok || r2 < 0xdc00 || r2 > 0xdfff {
			return true
		}
		i += 6
	}
	return false
}

// plain reads a string without escapes, as a slice of the document.
func (d *fastDec) plain() ([]byte, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return nil, false
	}
	s, end, ok := jsonlex.PlainString(d.b, d.i)
	if !ok {
		return nil, false
	}
	d.i = end
	return s, true
}

// digits reads an unsigned integer written as a JSON number without
// fraction or exponent (as pdata reads a number), or as a plain string
// (strconv's syntax, as pdata reads one); neg allows a minus sign.
func (d *fastDec) digits(neg bool) (string, bool) {
	b := d.b
	if d.i < len(b) && b[d.i] == '"' {
		s, ok := d.plain()
		if !ok || len(s) == 0 {
			return "", false
		}
		return unsafe.String(unsafe.SliceData(s), len(s)), true
	}
	st := d.i
	e := jsonlex.NumberEnd(b, st)
	if e < 0 || e > len(b) {
		return "", false
	}
	num := b[st:e]
	if num[0] == '-' && !neg {
		return "", false
	}
	for _, c := range num {
		if c == '.' || c == 'e' || c == 'E' {
			return "", false
		}
	}
	if e < len(b) && jsonlex.IsDigit(b[e]) { // a leading zero
		return "", false
	}
	d.i = e
	return unsafe.String(unsafe.SliceData(num), len(num)), true
}

func (d *fastDec) uint64v() (uint64, bool) {
	s, ok := d.digits(false)
	if !ok {
		return 0, false
	}
	// Nineteen digits or fewer cannot overflow: a timestamp in
	// nanoseconds has nineteen, and is summed here without strconv's
	// checks at each digit.
	if len(s) > 0 && len(s) <= 19 {
		var v uint64
		for i := 0; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				return 0, false // as strconv.ParseUint: not a digit
			}
			v = v*10 + uint64(c)
		}
		return v, true
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// count reads a dropped-items count (a uint32), which lf does not keep.
func (d *fastDec) count() bool {
	s, ok := d.digits(false)
	if !ok {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// enum reads an enum written as a small number (0 to max).
func (d *fastDec) enum(max int) (int, bool) {
	b := d.b
	if d.i >= len(b) || !jsonlex.IsDigit(b[d.i]) {
		return 0, false
	}
	s, ok := d.digits(false)
	if !ok || len(s) != 1 || int(s[0]-'0') > max {
		return 0, false
	}
	return int(s[0] - '0'), true
}

// id reads a trace or span id: n bytes in hex, "" for none (or all zeros).
func (d *fastDec) id(n int) (string, bool) {
	if n == 16 && d.c != nil && d.c.trace != "" &&
		hasAt(d.b, d.i, `"`) && hasAt(d.b, d.i+1, d.c.trace) && hasAt(d.b, d.i+1+32, `"`) {
		// The trace id of the span before, read as it was then.
		d.i += 1 + 32 + 1
		return d.c.trace, true
	}
	s, ok := d.plain()
	if !ok {
		return "", false
	}
	if len(s) == 0 {
		return "", true
	}
	if len(s) != 2*n {
		return "", false
	}
	var h [32]byte
	zero, lower := true, true
	for i, c := range s {
		switch {
		case jsonlex.IsDigit(c):
		case c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			c |= 0x20
			lower = false
		default:
			return "", false
		}
		zero = zero && c == '0'
		h[i] = c
	}
	switch {
	case zero:
		return "", true
	case lower && n == 16 && d.c != nil:
		// A trace's id comes again in each of its spans.
		d.c.trace = d.c.str(s)
		return d.c.trace, true
	case lower:
		return d.c.str(s), true
	}
	return string(h[:len(s)]), true
}

func (d *fastDec) resourceSpans() bool {
	// FromPdata's spans share their resource's attributes, read before
	// or after them.
	res := NewAttrs([]KV{})
	d.res = &res
	return d.object(func(key string) bool {
		switch key {
		case "resource":
			return d.object(func(key string) bool {
				switch key {
				case "attributes":
					kvs, ok := d.kvs()
					res = NewAttrs(kvs)
					return ok
				case "droppedAttributesCount":
					return d.count()
				}
				return false
			})
		case "scopeSpans":
			return d.array(d.scopeSpans)
		case "schemaUrl":
			_, ok := d.str()
			return ok
		}
		return false
	})
}

func (d *fastDec) scopeSpans() bool {
	first := len(d.out)
	scope := ""
	ok := d.object(func(key string) bool {
		switch key {
		case "scope":
			return d.object(func(key string) bool {
				var ok bool
				switch key {
				case "name":
					scope, ok = d.str()
				case "version":
					_, ok = d.str()
				case "attributes":
					_, ok = d.kvs()
				case "droppedAttributesCount":
					ok = d.count()
				}
				return ok
			})
		case "spans":
			return d.array(d.span)
		case "schemaUrl":
			_, ok := d.str()
			return ok
		}
		return false
	})
	for _, s := range d.out[first:] {
		s.Scope = scope
	}
	return ok
}

// spanKinds are the names FromPdata gives OTLP span kinds 0 to 5.
var spanKinds = [...]string{"", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"}

func (d *fastDec) span() bool {
	if len(d.spans) == cap(d.spans) {
		d.spans = make([]Span, 0, max(min(2*cap(d.spans), 32), 2))
	}
	d.spans = append(d.spans, Span{Line: d.line, Resource: d.res})
	sp := &d.spans[len(d.spans)-1]
	ok := d.object(func(key string) bool {
		var ok bool
		switch key {
		case "traceId":
			sp.TraceID, ok = d.id(16)
		case "spanId":
			sp.SpanID, ok = d.id(8)
		case "parentSpanId":
			sp.ParentID, ok = d.id(8)
		case "traceState", "name":
			var s string
			s, ok = d.str()
			if key == "name" {
				sp.Name = s
			}
		case "flags", "droppedAttributesCount", "droppedEventsCount", "droppedLinksCount":
			ok = d.count()
		case "kind":
			var k int
			k, ok = d.enum(len(spanKinds) - 1)
			sp.Kind = spanKinds[k]
		case "startTimeUnixNano", "endTimeUnixNano":
			var t uint64
			t, ok = d.uint64v()
			if key[0] == 's' {
				sp.Start = int64(t)
			} else {
				sp.End = int64(t)
			}
		case "attributes":
			var kvs []KV
			kvs, ok = d.kvs()
			sp.Attrs = NewAttrs(kvs)
		case "events":
			ok = d.array(func() bool {
				e, ok := d.event()
				sp.Events = append(sp.Events, e)
				return ok
			})
		case "status":
			ok = d.object(func(key string) bool {
				switch key {
				case "message":
					_, ok := d.str()
					return ok
				case "code":
					c, ok := d.enum(2)
					sp.Status = [...]string{"", "OK", "ERROR"}[c]
					return ok
				}
				return false
			})
		}
		return ok
	})
	if sp.Attrs.list == nil {
		sp.Attrs = NewAttrs([]KV{})
	}
	d.out = append(d.out, sp)
	return ok
}

func (d *fastDec) event() (SpanEvent, bool) {
	var e SpanEvent
	ok := d.object(func(key string) bool {
		switch key {
		case "timeUnixNano":
			t, ok := d.uint64v()
			e.Time = int64(t)
			return ok
		case "name":
			var ok bool
			e.Name, ok = d.str()
			return ok
		case "attributes":
			kvs, ok := d.kvs()
			e.Attrs = NewAttrs(kvs)
			return ok
		case "droppedAttributesCount":
			return d.count()
		}
		return false
	})
	if e.Attrs.list == nil {
		e.Attrs = NewAttrs([]KV{})
	}
	return e, ok
}

// kvs reads a list of key-value pairs. The lists share slabs: those of
// one document, and with a decoder's state, of the documents around it,
// whose spans are mapped, then dropped, at about the same time.
func (d *fastDec) kvs() ([]KV, bool) {
	base := len(d.pairs)
	ok := d.array(func() bool {
		kv, ok := d.stringPair()
		if !ok {
			kv, ok = d.pair()
		}
		d.pairs = append(d.pairs, kv)
		return ok
	})
	n := len(d.pairs) - base
	if d.slab == nil || cap(d.slab)-len(d.slab) < n {
		d.slab = make([]KV, 0, max(n, min(2*cap(d.slab), 256), 8))
	}
	o := len(d.slab)
	d.slab = append(d.slab, d.pairs[base:]...)
	clear(d.pairs[base:])
	d.pairs = d.pairs[:base]
	return d.slab[o : o+n : o+n], ok
}

// pair reads a key-value pair.
func (d *fastDec) pair() (KV, bool) {
	var kv KV
	ok := d.object(func(key string) bool {
		var ok bool
		switch key {
		case "key":
			kv.Key, ok = d.str()
		case "value":
			kv.Value, ok = d.value()
		}
		return ok
	})
	return kv, ok
}

// stringPair reads a pair written as exporters write a text attribute,
// {"key":"...","value":{"stringValue":"..."}} without spaces, as the
// pair reads it, without going through two objects' keys; on
// anything else it leaves d.i where it was, for pair (which also tells
// what is wrong). TestStringPairMatchesPair holds the two together.
func (d *fastDec) stringPair() (KV, bool) {
	const head, mid, tail = `{"key":`, `,"value":{"stringValue":`, `}}`
	st := d.i
	// The two objects would be read at these depths.
	if d.depth+2 > maxFastDepth || !hasAt(d.b, st, head) {
		return KV{}, false
	}
	d.i += len(head)
	k, ok := d.str()
	if !ok || !hasAt(d.b, d.i, mid) {
		d.i = st
		return KV{}, false
	}
	d.i += len(mid)
	v, ok := d.strValue()
	if !ok || !hasAt(d.b, d.i, tail) {
		d.i = st
		return KV{}, false
	}
	d.i += len(tail)
	return KV{Key: k, Value: v}, true
}

// hasAt tells whether b holds s at i.
func hasAt(b []byte, i int, s string) bool {
	return len(b)-i >= len(s) && string(b[i:i+len(s)]) == s
}

// value reads an AnyValue holding at most one field.
func (d *fastDec) value() (any, bool) {
	var v any
	n := 0
	ok := d.object(func(key string) bool {
		if n++; n > 1 {
			return false
		}
		var ok bool
		switch key {
		case "stringValue":
			v, ok = d.strValue()
		case "boolValue":
			switch {
			case jsonlex.Lit(d.b, d.i, "true"):
				v, ok = true, true
				d.i += 4
			case jsonlex.Lit(d.b, d.i, "false"):
				v, ok = false, true
				d.i += 5
			}
		case "intValue":
			var s string
			if s, ok = d.digits(true); ok {
				var n int64
				var err error
				n, err = strconv.ParseInt(s, 10, 64)
				v, ok = n, err == nil
			}
		case "doubleValue":
			v, ok = d.double()
		case "bytesValue":
			v, ok = d.bytes()
		case "arrayValue":
			list := []any{}
			ok = d.object(func(key string) bool {
				if key != "values" {
					return false
				}
				return d.array(func() bool {
					e, ok := d.value()
					list = append(list, e)
					return ok
				})
			})
			v = list
		case "kvlistValue":
			list := []KV{}
			ok = d.object(func(key string) bool {
				if key != "values" {
					return false
				}
				var ok bool
				list, ok = d.kvs()
				return ok
			})
			v = list
		}
		return ok
	})
	return v, ok
}

// double reads a doubleValue written as a JSON number (pdata also takes
// strings such as "NaN", which the fast path leaves to it).
func (d *fastDec) double() (float64, bool) {
	e := jsonlex.NumberEnd(d.b, d.i)
	if e < 0 || (e < len(d.b) && jsonlex.IsDigit(d.b[e])) {
		return 0, false
	}
	num := d.b[d.i:e]
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(num), len(num)), 64)
	if err != nil {
		return 0, false
	}
	d.i = e
	return f, true
}

// bytes reads a bytesValue: base64 without escapes, kept as FromPdata
// keeps it (decoded, then written again).
func (d *fastDec) bytes() (Bytes, bool) {
	s, ok := d.plain()
	if !ok {
		return "", false
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(raw, s)
	if err != nil {
		return "", false
	}
	return Bytes(base64.StdEncoding.EncodeToString(raw[:n])), true
}

// strValue is str boxed, short texts from the cache. A plain ASCII
// string that PlainEnd read to its end is not read again by str.
func (d *fastDec) strValue() (any, bool) {
	if d.i < len(d.b) && d.b[d.i] == '"' {
		if e := jsonlex.PlainEnd(d.b, d.i+1); e >= 0 {
			body := d.b[d.i+1 : e]
			d.i = e + 1
			if len(body) <= maxCached {
				return d.c.boxed(body), true
			}
			return string(body), true
		}
	}
	s, ok := d.str()
	return s, ok
}

// strCache keeps the short strings one decoder read last, found by their
// bytes, with their boxed form: keys, kinds, names and a trace's id come
// again in every span, and are then neither allocated nor boxed again.
type strCache struct {
	seed maphash.Seed
	e    [1024]strEntry
	// What else a decoder keeps from one document to the next: the stack
	// of pairs being read (empty between documents), and the room left in
	// the slabs its spans and lists are made in. Documents read one after
	// another hold spans of the same traces, which are dropped together.
	pairs []KV
	spans []Span
	slab  []KV
	unq   []byte
	trace string // the last trace id read in lower-case hex, not zero
}

type strEntry struct {
	s string
	v any // s
}

// maxCached is the longest string the cache keeps.
const maxCached = 48

func newStrCache() *strCache { return &strCache{seed: maphash.MakeSeed()} }

// get returns the entry of b's text, made if it is not there (its boxed
// form made only when asked for: most strings are not boxed).
func (c *strCache) get(b []byte) *strEntry {
	e := &c.e[maphash.Bytes(c.seed, b)&uint64(len(c.e)-1)]
	if e.s != string(b) {
		e.s, e.v = string(b), nil
	}
	return e
}

// str is b's text, from the cache (nil: none).
func (c *strCache) str(b []byte) string {
	if c == nil {
		return string(b)
	}
	return c.get(b).s
}

// boxed is b's text as an any, from the cache (nil: none).
func (c *strCache) boxed(b []byte) any {
	if c == nil {
		return string(b)
	}
	e := c.get(b)
	if e.v == nil {
		e.v = e.s
	}
	return e.v
}
