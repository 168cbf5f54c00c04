package importers

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"
)

// The byte loops lax, balanced and topLevelKeys had before they used
// jsonlex, kept as references: the lexer's skim must read strings
// (escaped quotes, runs of backslashes, unclosed strings) as they did.

func balancedRef(b []byte) []byte {
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return nil
	}
	depth, inStr := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return b[:i+1]
			}
		}
	}
	return nil
}

func topLevelKeysRef(b []byte) (map[string]struct{}, bool) {
	keys := map[string]struct{}{}
	depth, expectKey := 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return keys, false
			}
			if depth == 1 && expectKey {
				keys[string(b[i+1:j])] = struct{}{}
				expectKey = false
			}
			i = j
		case '{', '[':
			depth++
			if depth == 1 && c == '{' {
				expectKey = true
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return keys, true
			}
		case ',':
			if depth == 1 {
				expectKey = true
			}
		}
	}
	return keys, false
}

func laxRef(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		var tok []byte
		switch {
		case c == '"':
			inStr = true
		case c == 'N' && bytes.HasPrefix(b[i:], tokNaN):
			tok = tokNaN
		case c == 'I' && bytes.HasPrefix(b[i:], tokInf):
			tok = tokInf
		case c == '-' && bytes.HasPrefix(b[i:], tokNegInf):
			tok = tokNegInf
		}
		if tok == nil {
			out = append(out, c)
			continue
		}
		out = append(out, '"')
		out = append(out, tok...)
		out = append(out, '"')
		i += len(tok) - 1
	}
	return out
}

func TestSkimsMatchByteLoops(t *testing.T) {
	pieces := []string{`{`, `}`, `[`, `]`, `,`, `:`, `"`, `\`, `\\`, `\"`, `"a"`, `"k"`, ` `, `1`, `NaN`, `Infinity`, `-Infinity`, `"NaN"`, `x`}
	rng := rand.New(rand.NewSource(25))
	for n := 0; n < 50000; n++ {
		var sb bytes.Buffer
		if rng.Intn(2) == 0 {
			sb.WriteString("{")
		}
		for k := rng.Intn(12); k > 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b := sb.Bytes()
		if got, want := balanced(b), balancedRef(b); !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("balanced(%q) = %q, want %q", b, got, want)
		}
		gk, gc := topLevelKeys(b)
		wk, wc := topLevelKeysRef(b)
		if gc != wc || !reflect.DeepEqual(gk, wk) {
			t.Fatalf("topLevelKeys(%q) = %v, %v; want %v, %v", b, gk, gc, wk, wc)
		}
		if got, want := lax(b).out, laxRef(b); (bytes.Contains(b, tokNaN) || bytes.Contains(b, tokInf)) && !bytes.Equal(got, want) {
			t.Fatalf("lax(%q) = %q, want %q", b, got, want)
		}
	}
}
