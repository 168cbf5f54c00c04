package agentleak

import (
	"math/rand"
	"strings"
	"testing"
)

// plainRunBytes is plainRun one byte at a time.
func plainRunBytes(b []byte, i int) int {
	for i < len(b) && strPlain[b[i]] {
		i++
	}
	return i
}

// TestPlainRunMatchesByteLoop: the eight-bytes-at-a-time skip stops where
// the byte loop does, for every byte value at every position of a word and
// next to other special bytes, and on random texts.
func TestPlainRunMatchesByteLoop(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 20; pos++ {
			for _, fill := range []byte{'a', 0x80, 0xff, 0x21, '"' + 1, '\\' - 1, 0x7f} {
				b := make([]byte, 24)
				for k := range b {
					b[k] = fill
				}
				b[pos] = byte(c)
				for start := 0; start <= 3; start++ {
					if got, want := plainRun(b, start), plainRunBytes(b, start); got != want {
						t.Fatalf("byte %#x at %d in %#x, from %d: %d, want %d", c, pos, fill, start, got, want)
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("ab \"\\\x00\x1f\x20\x7f\x80\xc3\xa9\xff")
	for n := 0; n < 20000; n++ {
		b := make([]byte, rng.Intn(40))
		for k := range b {
			if rng.Intn(4) == 0 {
				b[k] = byte(rng.Intn(256))
			} else {
				b[k] = alphabet[rng.Intn(len(alphabet))]
			}
		}
		for start := 0; start <= len(b); start++ {
			if got, want := plainRun(b, start), plainRunBytes(b, start); got != want {
				t.Fatalf("%q from %d: %d, want %d", b, start, got, want)
			}
		}
	}
}

// TestPlainTextMatchesByteLoop: the eight-bytes-at-a-time check of a vault
// file's bytes agrees with the byte loop for every byte value at every
// position.
func TestPlainTextMatchesByteLoop(t *testing.T) {
	byByte := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false
			}
		}
		return true
	}
	for c := 0; c < 256; c++ {
		for n := 1; n <= 19; n++ {
			for pos := 0; pos < n; pos++ {
				b := []byte(strings.Repeat("a\n\x80 ", 5)[:n])
				b[pos] = byte(c)
				if got, want := plainText(b), byByte(b); got != want {
					t.Fatalf("%q: %v, want %v", b, got, want)
				}
			}
		}
	}
}
