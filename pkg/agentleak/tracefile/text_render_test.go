package tracefile

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// randomJSONValue writes a random JSON value: nested objects and arrays,
// keys with underscores, dashes and non-ASCII letters, strings with every
// kind of escape, numbers of every form, literals and whitespace.
func randomJSONValue(rng *rand.Rand, b *strings.Builder, depth int) {
	ws := func() {
		if rng.Intn(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t ", "\r\n  "}[rng.Intn(4)])
		}
	}
	str := func() {
		parts := []string{"a", "_", "-", "key", "é", "名", `\"`, `\\`, `\/`, `\n`, `\t`, `\b`, `\f`, `\r`, `\u00e9`, `\u0041`, `\ud83d\ude00`, `\ud800`, `\u005f`, " ", "|", ":", "\x7f", "😀"}
		b.WriteByte('"')
		for n := rng.Intn(5); n > 0; n-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		b.WriteByte('"')
	}
	ws()
	k := rng.Intn(9)
	if depth > 4 {
		k = 3 + rng.Intn(6)
	}
	switch k {
	case 0, 1:
		b.WriteByte('{')
		for i, n := 0, rng.Intn(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			str()
			ws()
			b.WriteByte(':')
			randomJSONValue(rng, b, depth+1)
		}
		ws()
		b.WriteByte('}')
	case 2:
		b.WriteByte('[')
		for i, n := 0, rng.Intn(4); i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSONValue(rng, b, depth+1)
		}
		ws()
		b.WriteByte(']')
	case 3, 4:
		str()
	case 5, 6:
		b.WriteString([]string{"0", "-0", "12", "-3.25", "1e5", "2.5E-3", "1E+2", "0.000", "123456789012345678901234567890"}[rng.Intn(9)])
	default:
		b.WriteString([]string{"true", "false", "null"}[rng.Intn(3)])
	}
	ws()
}

// TestValueTextMatchesDecoder holds the direct renderer to the encoding/json
// one: the same text for every value it takes on, and for broken values it
// must decline (the caller then reports encoding/json's error).
func TestValueTextMatchesDecoder(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	check := func(raw string) {
		t.Helper()
		got, ok := AppendValueText(nil, []byte(raw))
		want, err := decodedValueText([]byte(raw))
		if !ok {
			return // the reference path decides
		}
		if err != nil {
			t.Fatalf("%q: rendered %q, encoding/json says %v", raw, got, err)
		}
		if string(got) != want {
			t.Fatalf("%q: rendered %q, want %q", raw, got, want)
		}
	}
	taken := 0
	for n := 0; n < testfiles.Iterations(20000); n++ {
		var b strings.Builder
		randomJSONValue(rng, &b, 0)
		raw := b.String()
		if _, ok := AppendValueText(nil, []byte(raw)); ok {
			taken++
		}
		check(raw)
		// Broken copies: a byte dropped, doubled or replaced.
		if len(raw) > 0 {
			i := rng.Intn(len(raw))
			check(raw[:i] + raw[i+1:])
			check(raw[:i] + raw[i:i+1] + raw[i:])
			const junk = "{}[],:\"\\x0-e.\x01 "
			check(raw[:i] + junk[rng.Intn(len(junk)):][:1] + raw[i+1:])
		}
	}
	if taken < testfiles.Iterations(20000)*3/4 {
		t.Fatalf("the direct renderer took on only %d of %d valid values", taken, testfiles.Iterations(20000))
	}
	for _, raw := range []string{
		`{"patient_name": "Ann", "dob": "1990-01-02"}`, `[1, "two", {"x-y": null}]`, `{}`, `[]`,
		`{"a":1} {"b":2}`, `{"a":1}x`, `[01]`, `[1.]`, `[-]`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `"\x01"`,
		`["\ud800"]`, "[\"\xff\"]", `[truex]`, `[nul]`, strings.Repeat("[", 600) + strings.Repeat("]", 600),
	} {
		check(raw)
	}
}
