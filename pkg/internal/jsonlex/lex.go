// Package jsonlex is the JSON lexer the hand-written decoders share: the
// trace decoder, the agent-risk event decoder, the server's body checks
// and verdict decoder, and the importers' walker. It has the primitives
// only (white space, strings and their escapes, numbers, literals,
// skipping a whole value); each decoder keeps its own structure, the keys
// it wants and its fall-back to encoding/json, which gives the located
// messages for bad input.
//
// The functions take the document and an index and return the index after
// what they read. A negative result r means a syntax error, found at byte
// ^r of the document (ErrorOffset); a decoder that gives up on it can
// still tell where. PlainEnd alone answers -1 for "not a plain string",
// which is no error. The functions are small so that the hot ones inline
// into their callers (go build -gcflags=-m shows it).
package jsonlex

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte from i on that is not JSON
// white space (len(b) when there is none). The common cases (none, one
// space) stay inline.
func SkipSpace(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	if i+1 < len(b) && b[i] == ' ' && b[i+1] > ' ' {
		return i + 1 // `": "`, `", "`: one space
	}
	return skipSpaceLoop(b, i)
}

func skipSpaceLoop(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Lit reports whether b holds lit at i.
func Lit(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// LitEnd returns the index after the literal (true, false or null) at b[i],
// or a negative result: the error at the literal's first wrong byte.
func LitEnd(b []byte, i int) int {
	if i < len(b) {
		switch b[i] {
		case 't':
			if Lit(b, i, "true") {
				return i + 4
			}
		case 'f':
			if Lit(b, i, "false") {
				return i + 5
			}
		case 'n':
			if Lit(b, i, "null") {
				return i + 4
			}
		}
	}
	return litError(b, i)
}

// litError is LitEnd's error: the first byte from i that does not go on
// a literal that b[i] begins (i itself when none does).
func litError(b []byte, i int) int {
	if i >= len(b) {
		return ^i
	}
	var lit string
	switch b[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	case 'n':
		lit = "null"
	default:
		return ^i
	}
	j := 0
	for j < len(lit) && i+j < len(b) && b[i+j] == lit[j] {
		j++
	}
	return ^(i + j)
}

// IsDigit reports whether c is an ASCII digit.
func IsDigit(c byte) bool { return c-'0' < 10 }

// IsHex reports whether h is a hexadecimal digit.
func IsHex(h byte) bool { return IsDigit(h) || (h|0x20)-'a' < 6 }

// Hex4 reads the four hexadecimal digits at s[i:] (of a \u escape).
func Hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, h := range s[i : i+4] {
		switch {
		case IsDigit(h):
			r = r<<4 | rune(h-'0')
		case (h|0x20)-'a' < 6:
			r = r<<4 | rune((h|0x20)-'a'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// ErrorOffset is the byte offset of the syntax error a negative result r
// reports (r itself when it is not negative).
func ErrorOffset(r int) int {
	if r < 0 {
		return ^r
	}
	return r
}

// Next reads what follows a member of an object or an element of an array
// closed by end ('}' or ']'), spaces skipped: after a comma, the index of
// the next member or element and true; after end, the index past it and
// false; -1 and false on anything else, the end of b included.
func Next(b []byte, i int, end byte) (int, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return -1, false
	}
	switch b[i] {
	case ',':
		return SkipSpace(b, i+1), true
	case end:
		return i + 1, false
	}
	return -1, false
}
