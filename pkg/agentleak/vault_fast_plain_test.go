package agentleak

import (
	"strings"
	"testing"
)

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
