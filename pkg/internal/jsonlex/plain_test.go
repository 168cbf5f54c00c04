package jsonlex

import (
	"strings"
	"testing"
)

// plainEndBytes is PlainEnd one byte at a time (which gives up on b
// shorter than a word).
func plainEndBytes(b []byte, i int) int {
	if len(b) < 8 {
		return -1
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i
		case c == '\\' || c < 0x20 || c >= 0x80:
			return -1
		}
	}
	return -1
}

// TestPlainEndMatchesByteLoop: PlainEnd finds the closing quote the byte
// loop finds, or gives up where it does, for every byte value at every
// position of texts up to three words long, from every start (its last
// bytes read by an overlapping word).
func TestPlainEndMatchesByteLoop(t *testing.T) {
	for c := 0; c < 256; c++ {
		for n := 1; n <= 24; n++ {
			for pos := 0; pos < n; pos++ {
				for _, quote := range []int{-1, 0, 3, 7, 8, 15, n - 1} {
					b := []byte(strings.Repeat("a", n))
					if quote >= 0 && quote < n {
						b[quote] = '"'
					}
					b[pos] = byte(c)
					for start := 0; start <= n; start++ {
						if got, want := PlainEnd(b, start), plainEndBytes(b, start); got != want {
							t.Fatalf("%q from %d: %d, want %d", b, start, got, want)
						}
					}
				}
			}
		}
	}
}
