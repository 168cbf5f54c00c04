package jsonlex

import (
	"encoding/binary"
	"math/bits"
)

// The string search tests eight bytes at a time: a mask flags (with the
// byte's high bit) the bytes of a little-endian word that a string's body
// cannot hold as they are.

// LeWord is s (at most eight bytes) as a little-endian word.
func LeWord(s string) uint64 {
	var w [8]byte
	copy(w[:], s)
	return binary.LittleEndian.Uint64(w[:])
}

// HighBits as a string search's high: stop at bytes above 0x7f too.
const HighBits = 0x8080808080808080

// NextSpecial returns the index of the first byte from i on that is a
// quote, a backslash or a control character, or above 0x7f when high is
// HighBits; len(b) when there is none. Eight bytes are tested at a time
// (SpecialMask), and the last ones of b by a load that overlaps bytes
// already passed.
func NextSpecial(b []byte, i int, high uint64) int {
	for i+8 <= len(b) {
		if m := SpecialMask(LoadBytes64(b, i), high); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	if i >= len(b) {
		return len(b)
	}
	if len(b) >= 8 {
		// The bytes j..i-1 are passed: they read as 'a', so that none of
		// them is flagged or borrows from the bytes after it.
		j := len(b) - 8
		passed := uint64(1)<<(uint(i-j)*8) - 1
		w := binary.LittleEndian.Uint64(b[j:])&^passed | 0x6161616161616161&passed
		if m := SpecialMask(w, high); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
		return len(b)
	}
	if len(b) >= 4 {
		// Short b (rendered names, ids): the same with four-byte words,
		// the last one overlapping.
		for {
			j := min(i, len(b)-4)
			passed := uint32(1)<<(uint(i-j)*8) - 1
			w := binary.LittleEndian.Uint32(b[j:])&^passed | 0x61616161&passed
			if m := SpecialMask32(w, uint32(high)); m != 0 {
				return j + bits.TrailingZeros32(m)>>3
			}
			if j+4 >= len(b) {
				return len(b)
			}
			i = j + 4
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 && high != 0 {
			return i
		}
	}
	return i
}

// SpecialMask32 is SpecialMask for four bytes.
func SpecialMask32(w, high uint32) uint32 {
	const ones, highs = 0x01010101, 0x80808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return (((q-ones)|(bs-ones)|(w-ones*0x20))&^w | w&high) & highs
}

// StopMask flags (with the byte's high bit) bytes of w among which the
// lowest is the first quote, backslash, byte below 0x20 or byte above
// 0x7f, if any: it is SpecialMask(w, HighBits) without the &^ w, which only
// takes back flags of bytes above 0x7f, here wanted: the three
// subtractions flag each such byte themselves (x^'"' is 0x80 or more, so
// x^'"'-1 keeps bit 7 unless x is 0xa2, and 0xa2-0x20 does). The flags
// above the lowest may be false ones, and it is 0 exactly when
// SpecialMask(w, HighBits) is.
func StopMask(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q - ones) | (bs - ones) | (w - ones*0x20)) & highs
}

// SpecialMask flags (with the byte's high bit) the bytes of w that are a
// quote, a backslash or below 0x20, and those above 0x7f when high is
// HighBits. The tests are the "some byte is zero" / "some byte is below
// n" bit tricks, whose "and not the byte" parts are all the byte's own
// high bit (a quote and a backslash have none), so they share one &^ w.
// A borrow can only set a flag above a byte that already matched, so the
// lowest flag is always a true one.
func SpecialMask(w, high uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return (((q-ones)|(bs-ones)|(w-ones*0x20))&^w | w&high) & highs
}
