package otelspans

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// fastMessages decodes a GenAI messages attribute (gen_ai.input.messages,
// gen_ai.output.messages) as json.Unmarshal into []genMessage does, for
// the usual shape: an array of message objects with plain keys. ok is
// false for anything else (keys that differ only in case from a field's,
// repeated keys, nulls, values of another type, escaped keys, surrogate
// escapes, invalid UTF-8, bad syntax, trailing data), and the caller uses
// encoding/json, the reference: TestFastMessagesMatchesJSON and
// FuzzFastMessages hold the two to the same result.
func fastMessages(s string) (msgs []genMessage, ok bool) {
	m := msgDec{b: unsafe.Slice(unsafe.StringData(s), len(s))}
	m.i = jsonlex.SkipSpace(m.b, 0)
	msgs = []genMessage{}
	if !m.array(func() bool {
		var g genMessage
		ok := m.object([]string{"role", "parts", "content"}, func(k int) bool {
			var ok bool
			switch k {
			case 0:
				g.Role, ok = m.str()
			case 1:
				g.Parts = []genPart{}
				ok = m.array(func() bool {
					p, ok := m.part()
					g.Parts = append(g.Parts, p)
					return ok
				})
			case 2:
				g.Content, ok = m.raw()
			}
			return ok
		})
		msgs = append(msgs, g)
		return ok
	}) {
		return nil, false
	}
	return msgs, jsonlex.SkipSpace(m.b, m.i) == len(m.b)
}

// msgDec is fastMessages' state: the text and where it is read. b is a
// string's bytes, never written: the strings and raw values read from it
// are parts of it, not copies (an LLM span's output text, decoded thus,
// was copied twice, here and again by rawText).
type msgDec struct {
	b []byte
	i int
}

func (m *msgDec) part() (genPart, bool) {
	var p genPart
	ok := m.object([]string{"type", "content", "text", "name", "arguments"}, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			p.Type, ok = m.str()
		case 1:
			p.Content, ok = m.raw()
		case 2:
			p.Text, ok = m.str()
		case 3:
			p.Name, ok = m.str()
		case 4:
			p.Arguments, ok = m.raw()
		}
		return ok
	})
	return p, ok
}

// object reads an object, fn reading the value of fields[k]; other keys'
// values are checked and skipped, as encoding/json does.
func (m *msgDec) object(fields []string, fn func(k int) bool) bool {
	b := m.b
	if m.i >= len(b) || b[m.i] != '{' {
		return false
	}
	var seen uint32
	m.i = jsonlex.SkipSpace(b, m.i+1)
	if m.i < len(b) && b[m.i] == '}' {
		m.i++
		return true
	}
	for {
		if m.i >= len(b) || b[m.i] != '"' {
			return false
		}
		key, end, ok := jsonlex.PlainString(b, m.i)
		if !ok {
			return false
		}
		m.i = jsonlex.SkipSpace(b, end)
		if m.i >= len(b) || b[m.i] != ':' {
			return false
		}
		m.i = jsonlex.SkipSpace(b, m.i+1)
		// The key is part of the string decoded, so it needs no copy to
		// be compared as a string.
		ks := unsafe.String(unsafe.SliceData(key), len(key))
		k := -1
		for j, f := range fields {
			if ks == f {
				k = j
			} else if strings.EqualFold(ks, f) {
				return false // encoding/json would fill f
			}
		}
		if k >= 0 {
			if seen&(1<<k) != 0 || (m.i < len(b) && b[m.i] == 'n') || !fn(k) {
				return false // repeated, null, or not what the field holds
			}
			seen |= 1 << k
		} else if m.i = jsonlex.SkipValue(b, m.i); m.i < 0 {
			return false
		}
		n, more := jsonlex.Next(b, m.i, '}')
		if n < 0 {
			return false
		}
		m.i = n
		if !more {
			return true
		}
	}
}

// array reads an array, fn reading each element.
func (m *msgDec) array(fn func() bool) bool {
	b := m.b
	if m.i >= len(b) || b[m.i] != '[' {
		return false
	}
	m.i = jsonlex.SkipSpace(b, m.i+1)
	if m.i < len(b) && b[m.i] == ']' {
		m.i++
		return true
	}
	for {
		if !fn() {
			return false
		}
		n, more := jsonlex.Next(b, m.i, ']')
		if n < 0 {
			return false
		}
		m.i = n
		if !more {
			return true
		}
	}
}

// str reads a string in valid UTF-8 without surrogate escapes.
func (m *msgDec) str() (string, bool) {
	b := m.b
	if m.i >= len(b) || b[m.i] != '"' {
		return "", false
	}
	e, fl := jsonlex.StringEnd(b, m.i+1, jsonlex.HighBits)
	if e < 0 {
		return "", false
	}
	body := b[m.i+1 : e]
	if fl&jsonlex.StrHigh != 0 && !utf8.Valid(body) {
		return "", false
	}
	raw := b[m.i : e+1]
	m.i = e + 1
	if fl&jsonlex.StrEsc == 0 {
		return unsafe.String(unsafe.SliceData(body), len(body)), true
	}
	if surrogateEscape(body) {
		return "", false
	}
	out, ok := jsonlex.UnquoteTo(make([]byte, 0, len(body)+8), raw)
	if !ok {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// raw reads any value as its text (a json.RawMessage): part of the
// string decoded, where encoding/json makes a copy. Its capacity ends with
// it, so that an append cannot write into the string; nothing writes into
// a genMessage's raw values.
func (m *msgDec) raw() ([]byte, bool) {
	e := jsonlex.SkipValue(m.b, m.i)
	if e < 0 {
		return nil, false
	}
	r := m.b[m.i:e:e]
	m.i = e
	return r, true
}
