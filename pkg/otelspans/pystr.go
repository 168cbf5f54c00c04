package otelspans

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// PyStr renders an attribute value as the AgentLeak engine's adapter sees
// it: Python's str() of the decoded value. A string is itself, a boolean
// True/False, an integer its digits, a float Python's shortest repr
// (1.0, 1e-05, 1e+16), an array or key-value list its Python repr (single
// quotes), null None, a bytesValue the OTLP wrapper {'bytesValue': '...'}.
func PyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	pyRepr(&b, v)
	return b.String()
}

func pyRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case string:
		pyQuote(b, x)
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(pyFloat(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			pyRepr(b, e)
		}
		b.WriteByte(']')
	case []KV:
		b.WriteByte('{')
		for i, kv := range dedupe(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			pyQuote(b, kv.Key)
			b.WriteString(": ")
			pyRepr(b, kv.Value)
		}
		b.WriteByte('}')
	case Bytes:
		b.WriteString("{'bytesValue': ")
		pyQuote(b, string(x))
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

// dedupe keeps the last value of each key at the place of its first
// occurrence, as a Python dict built from the list does.
func dedupe(list []KV) []KV {
	seen := map[string]int{}
	var out []KV
	for _, kv := range list {
		if i, ok := seen[kv.Key]; ok {
			out[i].Value = kv.Value
			continue
		}
		seen[kv.Key] = len(out)
		out = append(out, kv)
	}
	return out
}

// pyFloat is Python's repr of a float: the shortest digits that read back,
// positional for exponents -4..15, else d.ddde+XX.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return fmt.Sprintf("%se%s%02d", mant, sign, exp)
}

// pyQuote is Python's repr of a string.
func pyQuote(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || (r >= 0x20 && r < 0x7f):
			b.WriteRune(r)
		case r < 0x100 && !unicode.IsPrint(r):
			fmt.Fprintf(b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r < 0x10000:
			fmt.Fprintf(b, `\u%04x`, r)
		case !unicode.IsPrint(r):
			fmt.Fprintf(b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
}
