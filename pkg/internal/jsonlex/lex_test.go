package jsonlex

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// document reports whether b is one JSON value with only white space
// around it, as the lexer reads it, and the result of SkipValue.
func document(b []byte) (bool, int) {
	r := SkipValue(b, SkipSpace(b, 0))
	return r >= 0 && SkipSpace(b, r) == len(b), r
}

// nesting is the deepest nesting of brackets in b outside strings (for
// valid JSON).
func nesting(b []byte) int {
	d, most, in := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// checkDocument compares the lexer with encoding/json on b: the same
// verdict (but for values nested deeper than MaxDepth, which the lexer
// gives up on), the same offset for an error the lexer finds inside the
// value, and for a valid value the same end as SkimValue and the same
// string as encoding/json for a string.
func checkDocument(t *testing.T, b []byte) {
	t.Helper()
	ok, r := document(b)
	if want := json.Valid(b); ok != want {
		if want && nesting(b) > MaxDepth {
			return
		}
		t.Fatalf("lexer says valid=%v, encoding/json %v: %q", ok, want, b)
	}
	if !ok && r < 0 && nesting(b) <= MaxDepth {
		var se *json.SyntaxError
		err := json.Unmarshal(b, new(any))
		if off := ErrorOffset(r); off < 0 || off > len(b) {
			t.Fatalf("error offset %d outside the input: %.200q", off, b)
		} else if errors.As(err, &se) && se.Offset != int64(off)+1 && !(off == len(b) && se.Offset == int64(len(b))) {
			t.Fatalf("error at byte %d, encoding/json at offset %d (%v): %.200q", off, se.Offset, err, b)
		}
	}
	if !ok {
		return
	}
	start := SkipSpace(b, 0)
	if e := SkimValue(b, start); e != r {
		t.Fatalf("SkimValue ends at %d, SkipValue at %d: %q", e, r, b)
	}
	if b[start] == '"' {
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, uok := Unquote(b[start:r])
		if !uok || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json %q", b[start:r], got, uok, want)
		}
		end, fl := StringEnd(b, start+1, HighBits)
		if end != r-1 {
			t.Fatalf("StringEnd = %d, want %d: %q", end, r-1, b)
		}
		body := b[start+1 : r-1]
		if (fl&StrEsc != 0) != (bytes.IndexByte(body, '\\') >= 0) || (fl&StrHigh != 0) != (strings.IndexFunc(string(body), func(c rune) bool { return c >= utf8.RuneSelf }) >= 0) {
			t.Fatalf("StringEnd flags %b for %q", fl, body)
		}
		s, pe, pok := PlainString(b, start)
		if plain := fl&StrEsc == 0 && utf8.Valid(body); pok != plain || (pok && (string(s) != want || pe != r)) {
			t.Fatalf("PlainString(%q) = %q, %d, %v", b[start:r], s, pe, pok)
		}
	}
}

// lexerCases are hand-picked documents: escapes, surrogate pairs (paired,
// lone, reversed), invalid UTF-8, numbers at the grammar's edges, huge
// numbers, literals cut short, and broken structure.
var lexerCases = []string{
	`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u00E9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`,
	`"\ud83dx"`, `"\ud83d\u0041"`, `"\uDBFF\uDFFF"`, `"\u0000"`, `"\u12G4"`, `"\u12"`, `"\x"`, `"\`, `"abc`,
	"\"a\x01b\"", "\"a\x7fb\"", "\"\xff\xfe\"", "\"\xc3\xa9\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
	`"long text without escapes, long enough for the word loop"`, `"long text \n with an escape after the first words"`,
	`0`, `-0`, `1`, `-`, `01`, `-01`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `-1.5e-300`, `+1`,
	`123456789012345678901234567890123456789012345678901234567890`, `1e999999999999`, `-1.0000000000000000000000001`,
	`true`, `false`, `null`, `tru`, `nul`, `fals`, `True`, `nullx`, `true false`,
	`[]`, `{}`, `[1,2,3]`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`,
	`{"a":{"b":[true,false,null,"x",{"c":-1e3}]}}`, " \t\n\r[ 1 , { \"k\" : [ ] } ] \n", `[`, `{`, `]`, `}`, `["a`, `{"a`, `{"a":`,
	`{"\u00e9":1}`, `{"a\"b":1}`, `[1]]`, ``, ` `, `[1,{"a":[2,{"b":"\ud800"}]}]`,
}

func TestLexerMatchesEncodingJSON(t *testing.T) {
	for _, c := range lexerCases {
		checkDocument(t, []byte(c))
	}
}

// TestDeepNesting: the lexer follows MaxDepth levels and gives up past
// them without a stack overflow; encoding/json decides those.
func TestDeepNesting(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1, MaxDepth + 2, 100000} {
		for _, open := range []string{"[", `{"a":`} {
			close := map[string]string{"[": "]", `{"a":`: "}"}[open]
			b := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
			ok, r := document(b)
			if want := n <= MaxDepth; ok != want {
				t.Fatalf("depth %d of %q: valid=%v (%d), want %v", n, open, ok, r, want)
			}
			checkDocument(t, b)
		}
	}
}

// randomDocument builds a JSON-like document from pieces that are often
// valid and sometimes not.
func randomDocument(rng *rand.Rand, depth int) string {
	pieces := []string{`"x"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, "\"\xff\"", `"a\nb"`, `"\q"`, `1`, `-0.5e+3`, `01`, `1.`, `true`, `nul`, `null`, ` `, "\t"}
	if depth > 4 || rng.Intn(3) == 0 {
		return pieces[rng.Intn(len(pieces))]
	}
	var sb strings.Builder
	n := rng.Intn(4)
	if rng.Intn(2) == 0 {
		sb.WriteString("[")
		for i := 0; i < n; i++ {
			if i > 0 || rng.Intn(20) == 0 {
				sb.WriteString(",")
			}
			sb.WriteString(randomDocument(rng, depth+1))
		}
		if rng.Intn(20) != 0 {
			sb.WriteString("]")
		}
		return sb.String()
	}
	sb.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(pieces[rng.Intn(6)] + ":" + randomDocument(rng, depth+1))
	}
	if rng.Intn(20) != 0 {
		sb.WriteString("}")
	}
	return sb.String()
}

func TestLexerMatchesEncodingJSONRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(25))
	for i := 0; i < 20000; i++ {
		checkDocument(t, []byte(randomDocument(rng, 0)))
	}
}

// TestUnquoteToAppends: UnquoteTo appends to what out holds, whatever its
// spare capacity.
func TestUnquoteToAppends(t *testing.T) {
	for _, c := range lexerCases {
		var want string
		if json.Unmarshal([]byte(c), &want) != nil || c[0] != '"' {
			continue
		}
		for room := 0; room < 12; room++ {
			out, ok := UnquoteTo(append(make([]byte, 0, 3+room), "pre"...), []byte(c))
			if !ok || string(out[:3]) != "pre" || CoerceUTF8(out[3:]) != want {
				t.Fatalf("UnquoteTo(pre, %q) = %q, %v; want pre+%q", c, out, ok, want)
			}
		}
	}
}

// TestEscapeEnd: every escape encoding/json takes, and no other.
func TestEscapeEnd(t *testing.T) {
	for c := 0; c < 256; c++ {
		for _, tail := range []string{"", "0041", "00e9", "12G4", "123"} {
			raw := `\` + string(rune(c)) + tail
			if c >= 0x80 {
				raw = `\` + string([]byte{byte(c)}) + tail
			}
			e := EscapeEnd([]byte(raw), 0)
			valid := json.Valid([]byte(`"` + raw + `"`))
			if (e >= 0) != valid && !(e >= 0 && !valid) {
				t.Fatalf("EscapeEnd(%q) = %d, encoding/json valid %v", raw, e, valid)
			}
			if e >= 0 && !json.Valid([]byte(`"`+raw[:e]+`"`)) {
				t.Fatalf("EscapeEnd(%q) = %d: %q is no escape", raw, e, raw[:e])
			}
		}
	}
}

// TestLitAndNumberEnd: the scalar readers on their own.
func TestLitAndNumberEnd(t *testing.T) {
	for _, c := range lexerCases {
		b := []byte(c)
		if len(b) == 0 {
			continue
		}
		switch b[0] {
		case 't', 'f', 'n':
			if got, want := LitEnd(b, 0) == len(b), json.Valid(b); got != want {
				t.Fatalf("LitEnd(%q) = %d, encoding/json valid %v", c, LitEnd(b, 0), want)
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if got, want := NumberEnd(b, 0) == len(b), json.Valid(b); got != want {
				t.Fatalf("NumberEnd(%q) = %d, encoding/json valid %v", c, NumberEnd(b, 0), want)
			}
		}
	}
	if LitEnd(nil, 0) >= 0 || NumberEnd(nil, 0) >= 0 || NumberEnd([]byte("-"), 0) >= 0 || SkipValue(nil, 0) >= 0 {
		t.Fatal("an empty input reads as a value")
	}
}

// FuzzLexer: the lexer and encoding/json agree on any input.
func FuzzLexer(f *testing.F) {
	for _, c := range lexerCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDocument(t, b)
		if len(b) > 0 && b[0] == '"' {
			// A string as a document's start: StringEnd and encoding/json's
			// view of the same bytes closed there.
			if e, _ := StringEnd(b, 1, 0); e >= 0 {
				checkDocument(t, b[:e+1])
			}
		}
	})
}

// TestNext: what follows a member or element, for both closers.
func TestNext(t *testing.T) {
	for _, c := range []struct {
		in   string
		end  byte
		want int
		more bool
	}{
		{`,"a"`, '}', 1, true},
		{` , 	"a"`, '}', 4, true},
		{`}`, '}', 1, false},
		{"  \n]x", ']', 4, false},
		{`]`, '}', -1, false},
		{`}`, ']', -1, false},
		{`x`, ']', -1, false},
		{`  `, ']', -1, false},
		{``, '}', -1, false},
	} {
		got, more := Next([]byte(c.in), 0, c.end)
		if got != c.want || more != c.more {
			t.Errorf("Next(%q, %q) = %d, %v; want %d, %v", c.in, c.end, got, more, c.want, c.more)
		}
	}
}
