package agentleak

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// appendJSONStringRef is the byte-by-byte quoting appendJSONString
// replaced: the reference its output must match.
func appendJSONStringRef(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloatRef is the strconv-only formatting appendJSONFloat
// replaced.
func appendJSONFloatRef(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// encodingJSONString is how encoding/json writes s without HTML escapes.
func encodingJSONString(t *testing.T, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func checkString(t *testing.T, s string) {
	t.Helper()
	got := appendJSONString([]byte("x"), s)
	if want := appendJSONStringRef([]byte("x"), s); !bytes.Equal(got, want) {
		t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
	}
	if want := encodingJSONString(t, s); !bytes.Equal(got[1:], want) {
		t.Fatalf("appendJSONString(%q) = %s, encoding/json %s", s, got[1:], want)
	}
	// With room for the string (the path of a reused buffer).
	if roomy := appendJSONString(append(make([]byte, 0, len(s)+24), 'x'), s); !bytes.Equal(roomy, got) {
		t.Fatalf("appendJSONString(%q) with room = %s, want %s", s, roomy, got)
	}
}

// TestAppendJSONStringMatches: the word-at-a-time quoting writes the old
// quoting's bytes (and encoding/json's without HTML escapes) for every
// byte value at every position of a word and of its tail, for runes
// of every length cut anywhere, and for random texts.
func TestAppendJSONStringMatches(t *testing.T) {
	for c := 0; c < 256; c++ {
		for n := 1; n <= 19; n++ {
			for pos := 0; pos < n; pos++ {
				for _, fill := range []string{"a", "é", "<&>", "\u2028", "\x7f~ "} {
					b := []byte(strings.Repeat(fill, n)[:n])
					b[pos] = byte(c)
					checkString(t, string(b))
				}
			}
		}
	}
	// Longer strings (up to and past the four-word path) with a byte of
	// each kind at every position.
	for _, c := range []byte{0x00, 0x1f, '"', '\\', 0x7f, 0x80, 0xc3, 0xe2, 0xff, 'a'} {
		for n := 20; n <= 34; n++ {
			for pos := 0; pos < n; pos++ {
				b := []byte(strings.Repeat("x", n))
				b[pos] = c
				checkString(t, string(b))
			}
		}
	}
	pieces := []string{"a", "abcdefgh", "\"", "\\", "\x00", "\x1f", "\x7f", "\n", "\t", "é", "中", "\U0001F600", "\u2028", "\u2029", "\u2027", "\u202a", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "<", ">", "&", "\ufffd", " "}
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < testfiles.Iterations(50000); n++ {
		var sb strings.Builder
		for k := rng.Intn(12); k > 0; k-- {
			if rng.Intn(5) == 0 {
				sb.WriteByte(byte(rng.Intn(256)))
			} else {
				sb.WriteString(pieces[rng.Intn(len(pieces))])
			}
		}
		checkString(t, sb.String())
	}
}

func checkFloat(t *testing.T, f float64) {
	t.Helper()
	got := appendJSONFloat([]byte("x"), f)
	if want := appendJSONFloatRef([]byte("x"), f); !bytes.Equal(got, want) {
		t.Fatalf("appendJSONFloat(%v) = %s, want %s", f, got, want)
	}
	if roomy := appendJSONFloat(append(make([]byte, 0, 48), 'x'), f); !bytes.Equal(roomy, got) {
		t.Fatalf("appendJSONFloat(%v) with room = %s, want %s", f, roomy, got)
	}
	if got, want := appendFloatF([]byte("x"), f), strconv.AppendFloat([]byte("x"), f, 'f', -1, 64); !bytes.Equal(got, want) {
		t.Fatalf("appendFloatF(%v) = %s, want %s", f, got, want)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return
	}
	if want, _ := json.Marshal(f); !bytes.Equal(got[1:], want) {
		t.Fatalf("appendJSONFloat(%v) = %s, encoding/json %s", f, got[1:], want)
	}
}

// TestAppendJSONFloatMatches: the millionths path writes strconv's
// shortest decimal (and encoding/json's number): on exact millionths and
// their neighbours, on quotients the scores are made of, near the 1e9
// bound and on random doubles; values off the path go to strconv.
func TestAppendJSONFloatMatches(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.95, 0.3333, 1e-6, -1e-6, 9.99999e-7, 1e-7, 123456789.125, 999999999.999999, 1e9, -1e9, 1e9 - 1, 999999999.9999995, 1 << 33, 1e21, 1e20, 5e-324, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1), 0.1 + 0.2, 2.5e-9} {
		checkFloat(t, f)
		checkFloat(t, -f)
		checkFloat(t, math.Nextafter(f, math.Inf(1)))
		checkFloat(t, math.Nextafter(f, math.Inf(-1)))
	}
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < testfiles.Iterations(300000); n++ {
		var k int64
		switch n % 4 {
		case 0:
			k = rng.Int63n(2e6)
		case 1:
			k = rng.Int63n(1e15)
		case 2:
			k = rng.Int63n(1e4) * 100
		default:
			k = rng.Int63n(1 << 40)
		}
		f := float64(k) / 1e6
		checkFloat(t, f)
		checkFloat(t, -f)
		checkFloat(t, math.Nextafter(f, 2e9))
		checkFloat(t, math.Nextafter(f, -2e9))
		a, b := rng.Intn(100)+1, rng.Intn(100)+1
		checkFloat(t, float64(a)/float64(b))
		checkFloat(t, math.Round(float64(a)/float64(b)*1e4)/1e4)
		checkFloat(t, math.Float64frombits(rng.Uint64()))
		checkFloat(t, rng.Float64()*math.Pow(10, float64(rng.Intn(30)-15)))
	}
}
