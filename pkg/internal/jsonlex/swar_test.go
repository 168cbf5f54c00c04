package jsonlex

import (
	"math/bits"
	"math/rand"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// nextSpecialBytes is NextSpecial one byte at a time.
func nextSpecialBytes(b []byte, i int, high uint64) int {
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 && high != 0 {
			return i
		}
	}
	return i
}

// TestNextSpecialMatchesByteLoop: the eight-bytes-at-a-time search (with
// its overlapping last word) stops where the byte loop does, with and
// without stops above 0x7f, for every byte value at every position of
// texts of every length up to three words, from every start, next to
// other special bytes, and on random texts.
func TestNextSpecialMatchesByteLoop(t *testing.T) {
	t.Parallel() // pure functions: runs beside the other tests
	for c := 0; c < 256; c++ {
		for n := 1; n <= 24; n++ {
			for pos := 0; pos < n; pos++ {
				for _, fill := range []byte{'a', 0x80, 0xff, 0x21, '"' + 1, '\\' - 1, 0x7f, '"', 0x1f} {
					b := make([]byte, n)
					for k := range b {
						b[k] = fill
					}
					b[pos] = byte(c)
					for start := 0; start <= n; start++ {
						for _, high := range []uint64{0, HighBits} {
							if got, want := NextSpecial(b, start, high), nextSpecialBytes(b, start, high); got != want {
								t.Fatalf("byte %#x at %d in %d × %#x, from %d, high %#x: %d, want %d", c, pos, n, fill, start, high, got, want)
							}
						}
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("ab \"\\\x00\x1f\x20\x7f\x80\xc3\xa9\xff")
	for n := 0; n < testfiles.Iterations(20000); n++ {
		b := make([]byte, rng.Intn(40))
		for k := range b {
			if rng.Intn(4) == 0 {
				b[k] = byte(rng.Intn(256))
			} else {
				b[k] = alphabet[rng.Intn(len(alphabet))]
			}
		}
		for start := 0; start <= len(b); start++ {
			for _, high := range []uint64{0, HighBits} {
				if got, want := NextSpecial(b, start, high), nextSpecialBytes(b, start, high); got != want {
					t.Fatalf("%q from %d, high %#x: %d, want %d", b, start, high, got, want)
				}
			}
		}
	}
}

// lowestFlag is the index of the byte of a mask's lowest flag (8: none).
func lowestFlag(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

// TestStopMaskLowestFlag: StopMask's lowest flag is SpecialMask's (with
// stops above 0x7f) for every byte value at every position of a word of
// any other byte, after each kind of special byte, and on random words.
func TestStopMaskLowestFlag(t *testing.T) {
	t.Parallel()              // pure functions: runs beside the other tests
	check := func(w uint64) { // no t.Helper: it cost more than the check, 3.7 million times
		if got, want := lowestFlag(StopMask(w)), lowestFlag(SpecialMask(w, HighBits)); got != want {
			t.Fatalf("%#016x: StopMask flags byte %d first, SpecialMask %d", w, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		for fill := 0; fill < 256; fill++ {
			for pos := 0; pos < 8; pos++ {
				w := uint64(fill) * 0x0101010101010101
				w = w&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
				check(w)
				for _, low := range []uint64{'"', '\\', 0, 0x1f, 0x80, 0xff} {
					if pos > 0 {
						check(w&^0xff | low)
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < testfiles.Iterations(1000000); n++ {
		w := rng.Uint64()
		check(w)
		check(w & 0x7f7f7f7f7f7f7f7f)
		check(w&0x3f3f3f3f3f3f3f3f | 0x2020202020202020)
	}
}
