package tracefile

import (
	"unicode/utf8"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// AppendValueText appends the text EventText renders for the JSON value
// raw (an object as `key: value` pairs joined by " | " with underscores and
// dashes in keys turned into spaces, an array as its items joined by
// " | ", a string unquoted, a number as written, true, false, null). It
// reads the bytes directly instead of through encoding/json's token stream,
// which cost more than the rules on texts of structured content. ok is
// false for what it does not take on (bad syntax, a string whose unquoted
// bytes are not valid UTF-8, nesting deeper than 512): the caller then
// renders through encoding/json, which decides the message or the
// replacement characters. TestValueTextMatchesDecoder holds it to that path.
func AppendValueText(out, raw []byte) (_ []byte, ok bool) {
	r := valueText{b: raw, out: out}
	if !r.value(0) {
		return out, false
	}
	r.ws()
	if r.i != len(r.b) {
		return out, false
	}
	return r.out, true
}

type valueText struct {
	b   []byte
	i   int
	out []byte
}

// ws is a plain loop rather than jsonlex.SkipSpace, whose one-space case
// would make after too costly to inline.
func (r *valueText) ws() {
	for r.i < len(r.b) && jsonlex.IsSpace(r.b[r.i]) {
		r.i++
	}
}

// value renders one value from r.i.
func (r *valueText) value(depth int) bool {
	r.ws()
	if r.i >= len(r.b) || depth > 512 {
		return false
	}
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		return r.str(false)
	case c == '-' || jsonlex.IsDigit(c):
		return r.number()
	default:
		e := jsonlex.LitEnd(r.b, r.i)
		if e < 0 {
			return false
		}
		r.out = append(r.out, r.b[r.i:e]...)
		r.i = e
		return true
	}
}

func (r *valueText) object(depth int) bool {
	r.i++ // {
	r.ws()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return true
	}
	for first := true; ; first = false {
		r.ws()
		if r.i >= len(r.b) || r.b[r.i] != '"' {
			return false
		}
		if !first {
			r.out = append(r.out, " | "...)
		}
		if !r.str(true) {
			return false
		}
		r.ws()
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return false
		}
		r.i++
		r.out = append(r.out, ": "...)
		if !r.value(depth + 1) {
			return false
		}
		if more, ok := r.after('}'); !more {
			return ok
		}
	}
}

func (r *valueText) array(depth int) bool {
	r.i++ // [
	r.ws()
	if r.i < len(r.b) && r.b[r.i] == ']' {
		r.i++
		return true
	}
	for first := true; ; first = false {
		if !first {
			r.out = append(r.out, " | "...)
		}
		if !r.value(depth + 1) {
			return false
		}
		if more, ok := r.after(']'); !more {
			return ok
		}
	}
}

// after reads what follows a member or an item: a comma (more follow) or
// the closing byte (ok, the end); anything else is bad syntax.
func (r *valueText) after(closing byte) (more, ok bool) {
	r.ws()
	if r.i >= len(r.b) {
		return false, false
	}
	switch r.b[r.i] {
	case ',':
		r.i++
		return true, true
	case closing:
		r.i++
		return false, true
	}
	return false, false
}

// str appends the string at r.i unquoted; a key has '_' and '-' turned
// into spaces.
func (r *valueText) str(key bool) bool {
	s := r.i
	e, _ := jsonlex.StringEnd(r.b, r.i+1, 0)
	if e < 0 {
		return false
	}
	r.i = e + 1
	n := len(r.out)
	out, ok := jsonlex.UnquoteTo(r.out, r.b[s:r.i])
	if !ok || !utf8.Valid(out[n:]) {
		return false
	}
	if key {
		for k := n; k < len(out); k++ {
			if out[k] == '_' || out[k] == '-' {
				out[k] = ' '
			}
		}
	}
	r.out = out
	return true
}

// number appends a JSON number as it is written (what json.Number keeps),
// checking its grammar.
func (r *valueText) number() bool {
	e := jsonlex.NumberEnd(r.b, r.i)
	if e < 0 {
		return false
	}
	r.out = append(r.out, r.b[r.i:e]...)
	r.i = e
	return true
}
