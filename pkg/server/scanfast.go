package server

import (
	"unicode/utf8"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// The fast check of request bodies. scanBody walks a body with
// encoding/json's Decoder.Token, which allocates for every token: on an
// NDJSON batch of events it cost about 16 µs and 130 allocations per event,
// more than the ingest itself. quickScan checks the same limits in one pass
// over the bytes without allocating. It only ever says "passes": whenever
// it meets something it does not decide by itself (an error, an escape or
// a non-ASCII character in an id or a key, a top-level scalar, an object
// with many keys), it answers false and the body goes through scanBody,
// which gives the located error message. So quickScan(b) == true implies
// scanBody(b) == nil (TestQuickScanNeverAcceptsMore checks it), and every
// error message is the one scanBody writes.

// quickFrame is one open object or array of quickScan.
type quickFrame struct {
	sh    *shape
	array bool
	n     int // items of an array, keys of an object (at most maxQuickKeys)
}

// maxQuickKeys is the most keys an object may have on the fast check (the
// duplicate check compares every pair); larger objects go to scanBody.
const maxQuickKeys = 32

// quickScanner is the state of one quickScan call.
type quickScanner struct {
	b     []byte
	i     int
	stack [maxBodyDepth]quickFrame
	depth int
	keys  [maxBodyDepth][maxQuickKeys][2]int32 // each frame's keys so far, as offsets into b
}

// quickScan reports whether data certainly passes scanBody(data, sh, stream).
func quickScan(data []byte, sh *shape, stream bool) bool {
	if len(data) > 1<<30 { // offsets are int32
		return false
	}
	q := quickScanner{b: data}
	top := sh
	if stream && sh.elem != nil {
		top = sh.elem
	}
	values := 0
	for {
		q.ws()
		if q.i == len(q.b) {
			return values > 0
		}
		if values > 0 && !stream {
			return false
		}
		if stream && sh.maxItems > 0 && values >= sh.maxItems {
			return false
		}
		if c := q.b[q.i]; c != '{' && c != '[' { // top-level scalars: scanBody decides
			return false
		}
		if !q.value(top) {
			return false
		}
		values++
	}
}

func (q *quickScanner) ws() { q.i = jsonlex.SkipSpace(q.b, q.i) }

// value reads one complete value of shape cur (nil: no shape).
func (q *quickScanner) value(cur *shape) bool {
	base := q.depth
	if !q.one(cur) {
		return false
	}
	for q.depth > base { // inside objects and arrays opened by one
		f := &q.stack[q.depth-1]
		q.ws()
		if q.i >= len(q.b) {
			return false
		}
		c := q.b[q.i]
		switch {
		case f.array && c == ']', !f.array && c == '}':
			q.i++
			q.depth--
			continue
		case f.n > 0 && c != ',':
			return false
		case f.n > 0:
			q.i++
			q.ws()
		}
		var child *shape
		if f.array {
			if f.sh != nil && f.sh.maxItems > 0 && f.n >= f.sh.maxItems {
				return false
			}
			if f.sh != nil {
				child = f.sh.elem
			}
		} else {
			var ok bool
			if child, ok = q.key(f, q.depth-1); !ok {
				return false
			}
		}
		f.n++
		q.ws()
		if !q.one(child) {
			return false
		}
	}
	return true
}

// one reads a scalar, or opens an object or array (value reads its
// contents).
func (q *quickScanner) one(cur *shape) bool {
	if q.i >= len(q.b) {
		return false
	}
	switch c := q.b[q.i]; c {
	case '{', '[':
		if cur != nil && (cur.scalar != "" || (c == '[' && (cur.keys != nil || cur.anyKey)) || (c == '{' && cur.elem != nil && !cur.anyKey)) {
			return false
		}
		if q.depth >= maxBodyDepth {
			return false
		}
		q.stack[q.depth] = quickFrame{sh: cur, array: c == '['}
		q.depth++
		q.i++
		return true
	case '"':
		s, fl, ok := q.str()
		if !ok {
			return false
		}
		limit := maxTextBytes
		if cur != nil && cur.maxBytes > 0 {
			limit = cur.maxBytes
		}
		return len(s) <= limit && (cur == nil || !cur.id || plainID(s, fl))
	case 't', 'f', 'n':
		q.i = jsonlex.LitEnd(q.b, q.i)
	default:
		q.i = jsonlex.NumberEnd(q.b, q.i)
	}
	return q.i >= 0 && q.delim()
}

// key reads an object's key and its colon: known to f's shape, not seen
// before in f, plain ASCII. It returns the shape of the key's value.
func (q *quickScanner) key(f *quickFrame, depth int) (*shape, bool) {
	if q.i >= len(q.b) || q.b[q.i] != '"' {
		return nil, false
	}
	start := q.i + 1
	k, fl, ok := q.str()
	if !ok || !plainID(k, fl) || len(k) > maxIDBytes || f.n >= maxQuickKeys {
		return nil, false
	}
	seen := &q.keys[depth]
	for _, o := range seen[:f.n] {
		if string(q.b[o[0]:o[1]]) == string(k) {
			return nil, false
		}
	}
	seen[f.n] = [2]int32{int32(start), int32(start + len(k))}
	q.ws()
	if q.i >= len(q.b) || q.b[q.i] != ':' {
		return nil, false
	}
	q.i++
	switch {
	case f.sh == nil:
		return nil, true
	case f.sh.anyKey:
		return f.sh.elem, true
	case f.sh.keys != nil:
		child, ok := f.sh.keys[string(k)]
		return child, ok
	}
	return nil, true
}

// str reads a string; s is its raw content, fl what jsonlex.StringEnd
// found in it. The decoded length of a valid string is at most its raw
// length.
func (q *quickScanner) str() (s []byte, fl uint8, ok bool) {
	start := q.i + 1 // after the opening quote
	e, fl := jsonlex.StringEnd(q.b, start, jsonlex.HighBits)
	if e < 0 {
		return nil, 0, false
	}
	s = q.b[start:e]
	q.i = e + 1
	if fl&jsonlex.StrHigh != 0 && !utf8.Valid(s) {
		return nil, 0, false // invalid UTF-8 decodes longer (U+FFFD)
	}
	return s, fl, true
}

// plainID: the string s (read by str, which found fl in it) is printable
// ASCII without escapes, '<' or '>' (such a string passes the id rule as
// it is).
func plainID(s []byte, fl uint8) bool {
	if fl != 0 {
		return false
	}
	for _, c := range s {
		if c == '<' || c == '>' || c == 0x7f {
			return false
		}
	}
	return true
}

// delim: a scalar ends at white space, ',', ']' or '}' (scalars are never
// at the top level here).
func (q *quickScanner) delim() bool {
	if q.i >= len(q.b) {
		return false
	}
	switch q.b[q.i] {
	case ' ', '\t', '\n', '\r', ',', ']', '}':
		return true
	}
	return false
}
