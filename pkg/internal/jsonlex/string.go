package jsonlex

import (
	"bytes"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// What a string's body holds, as StringEnd reports it.
const (
	StrEsc  = 1 << iota // escapes
	StrHigh             // bytes at or above 0x80
)

// StringEnd checks the body of a string from b[i] (after its opening
// quote) and returns the index of its closing quote, or a negative result
// when the string is malformed or not closed; fl tells whether it holds
// escapes and, when high is HighBits, bytes above 0x7f (0: not looked
// for).
func StringEnd(b []byte, i int, high uint64) (end int, fl uint8) {
	for {
		// NextSpecial's loop, inline: most strings end in their first words.
		for {
			if i+8 > len(b) {
				i = NextSpecial(b, i, high)
				break
			}
			if m := SpecialMask(LoadBytes64(b, i), high); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return ^i, fl
		}
		switch c := b[i]; {
		case c == '"':
			return i, fl
		case c == '\\':
			fl |= StrEsc
			if i+1 >= len(b) {
				return ^(i + 1), fl
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !IsHex(b[i+2]) || !IsHex(b[i+3]) || !IsHex(b[i+4]) || !IsHex(b[i+5]) {
					return uError(b, i), fl
				}
				i += 6
			default:
				return ^(i + 1), fl
			}
		case c >= utf8.RuneSelf:
			fl |= StrHigh
			high = 0 // seen: the rest needs no stop for it
			i++
		default:
			return ^i, fl // a control character
		}
	}
}

// PlainEnd returns the index of the quote that closes the string whose body
// starts at b[i] when no byte before it is a backslash, a control character
// or above 0x7f, else -1 (as when b is shorter than eight bytes): not an
// error, a string for StringEnd. It is StringEnd's loop without its cases,
// for the plain ASCII strings (ids, names, timestamps) a decoder expects.
func PlainEnd(b []byte, i int) int {
	lim := len(b) - 8
	for ; i <= lim; i += 8 {
		w := LoadBytes64(b, i)
		if m := StopMask(w); m != 0 {
			t := bits.TrailingZeros64(m) // the flag: bit 7 of its byte
			if byte(w>>(t&^7)) == '"' {
				return i + t>>3
			}
			return -1
		}
	}
	if i >= len(b) || lim < 0 {
		return -1
	}
	// The last bytes (a trace's last timestamp ends there): b's last word,
	// the bytes before i read as 'a', as NextSpecial does.
	passed := uint64(1)<<(uint(i-lim)*8) - 1
	w := LoadBytes64(b, lim)&^passed | 0x6161616161616161&passed
	if m := StopMask(w); m != 0 {
		t := bits.TrailingZeros64(m)
		if byte(w>>(t&^7)) == '"' {
			return lim + t>>3
		}
	}
	return -1
}

// PlainString reads the string at b[i] == '"' when it has no escapes: its
// body (a slice of b) and the index after its closing quote. ok is false
// for an escape, a control character, invalid UTF-8 or no closing quote.
func PlainString(b []byte, i int) (s []byte, end int, ok bool) {
	e, fl := StringEnd(b, i+1, HighBits)
	if e < 0 || fl&StrEsc != 0 {
		return nil, e, false
	}
	s = b[i+1 : e]
	if fl&StrHigh != 0 && !utf8.Valid(s) {
		return nil, ^(i + 1), false
	}
	return s, e + 1, true
}

// QuoteEnd returns the index after the closing quote of the string at
// b[i] == '"' without checking its body (a skim: the first quote not
// escaped ends it), or a negative result when it is not closed.
func QuoteEnd(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return ^len(b)
		}
		i += j
		// an escaped quote has an odd number of backslashes before it
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1
		}
		i++
	}
}

// EscapeEnd returns the index after the escape at b[i] == '\\', or a
// negative result when it is not a JSON escape.
func EscapeEnd(b []byte, i int) int {
	if i+1 >= len(b) {
		return ^len(b)
	}
	if SimpleEscape[b[i+1]] {
		return i + 2
	}
	return UEscapeEnd(b, i)
}

// UEscapeEnd returns the index after the \uXXXX escape at b[i] (i+1 <
// len(b)), or a negative result when the escape at b[i] is not one or is
// cut short.
func UEscapeEnd(b []byte, i int) int {
	if b[i+1] != 'u' {
		return ^(i + 1)
	}
	if i+6 > len(b) || !IsHex(b[i+2]) || !IsHex(b[i+3]) || !IsHex(b[i+4]) || !IsHex(b[i+5]) {
		return uError(b, i)
	}
	return i + 6
}

// uError is the error of the bad \u escape at b[i]: at its first byte
// that is no hexadecimal digit, or at the end of b.
func uError(b []byte, i int) int {
	j := i + 2
	for j < len(b) && j < i+6 && IsHex(b[j]) {
		j++
	}
	return ^j
}

// UnquoteRun decodes the string at b[i] to out[o:] up to its closing quote
// or its first byte above 0x7f, and returns the index of that byte and
// the output's end (negative: the string is malformed or not closed). The bytes
// are copied eight at a time, each word stored whole and the output index
// moved only up to its first stop, as UnquoteTo does; out has room for the
// rest of b and a word. It holds only what the loop needs, so that all of
// it stays in registers.
func UnquoteRun(b, out []byte, i, o int) (int, int) {
	for lim := len(b) - 8; ; {
		for ; i <= lim; i, o = i+8, o+8 {
			w := LoadBytes64(b, i)
			StoreBytes64(out, o, w)
			if m := StopMask(w); m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				i += n
				o += n
				goto stop
			}
		}
		// The line's last bytes, one at a time.
		for i < len(b) && b[i] >= ' ' && b[i] != '"' && b[i] != '\\' && b[i] < utf8.RuneSelf {
			out[o] = b[i]
			i++
			o++
		}
		if i >= len(b) {
			return ^i, o
		}
	stop:
		if c := b[i]; c == '\\' {
			if i+1 < len(b) {
				if d := Unescaped[b[i+1]]; d != 0 {
					out[o] = d
					i += 2
					o++
					continue
				}
			}
			if i, o = UnquoteU(b, i, out, o); i < 0 {
				return i, o
			}
		} else if c == '"' || c >= utf8.RuneSelf {
			return i, o
		} else {
			return ^i, o // a control character
		}
	}
}

// UnquoteRunHigh is UnquoteRun without the stop at bytes above 0x7f.
func UnquoteRunHigh(b, out []byte, i, o int) (int, int) {
	for lim := len(b) - 8; ; {
		for ; i <= lim; i, o = i+8, o+8 {
			w := LoadBytes64(b, i)
			StoreBytes64(out, o, w)
			if m := SpecialMask(w, 0); m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				i += n
				o += n
				goto stop
			}
		}
		for i < len(b) && b[i] >= ' ' && b[i] != '"' && b[i] != '\\' {
			out[o] = b[i]
			i++
			o++
		}
		if i >= len(b) {
			return ^i, o
		}
	stop:
		if c := b[i]; c == '\\' {
			if i+1 < len(b) {
				if d := Unescaped[b[i+1]]; d != 0 {
					out[o] = d
					i += 2
					o++
					continue
				}
			}
			if i, o = UnquoteU(b, i, out, o); i < 0 {
				return i, o
			}
		} else if c == '"' {
			return i, o
		} else {
			return ^i, o // a control character
		}
	}
}

// UnquoteU decodes the \u escape at b[i] (and the low surrogate's after a
// high one's) to out[o:], as UnquoteTo does, and returns the indexes after
// them, or a negative result when there is no \u escape there.
func UnquoteU(b []byte, i int, out []byte, o int) (int, int) {
	if i+1 >= len(b) || b[i+1] != 'u' {
		return ^i, o
	}
	r, ok := Hex4(b, i+2)
	if !ok {
		return ^i, o
	}
	i += 6
	if utf16.IsSurrogate(r) {
		if r2, ok := Hex4(b, i+2); ok && i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return i + 6, o + utf8.EncodeRune(out[o:], d)
			}
		}
		r = utf8.RuneError
	}
	return i, o + utf8.EncodeRune(out[o:], r)
}

// SimpleEscape holds the bytes that follow a backslash in a two-byte
// escape.
var SimpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// Unquote decodes a JSON string literal (quotes included) that StringEnd or
// encoding/json already checked; ok is false on a malformed escape.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	out, ok := UnquoteTo(make([]byte, 0, len(raw)+6), raw) // UnquoteTo's room
	if !ok {
		return "", false
	}
	if !utf8.Valid(out) {
		return CoerceUTF8(out), true
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// UnquoteTo appends the bytes of the JSON string literal raw (quotes
// included) to out, escapes decoded; ok is false on a malformed escape.
// The bytes may not be valid UTF-8.
// Content has an escape every few dozen bytes: rather than a search and a
// copy per run between them, the text is copied eight bytes at a time into
// room made once (the decoded text is never longer than raw), each word
// stored whole and the output index moved only up to its first backslash.
func UnquoteTo(out, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	o := len(out)
	if cap(out)-o < len(s)+8 {
		out = append(out[:cap(out)], make([]byte, o+len(s)+8-cap(out))...)
	}
	out = out[:cap(out)]
	i, lim := 0, len(s)-8
	for {
		for ; i <= lim; i, o = i+8, o+8 {
			const ones, highs = 0x0101010101010101, 0x8080808080808080
			w := LoadBytes64(s, i)
			StoreBytes64(out, o, w)
			bs := w ^ (ones * '\\')
			// A byte's flag is set by a backslash, by a borrow from one
			// below it, or by a byte above 0x7f, which &^ bs takes back
			// (most text has none: one test).
			if m := (bs - ones) & highs; m != 0 {
				if m &^= bs; m != 0 {
					n := bits.TrailingZeros64(m) >> 3 // the lowest flag is a backslash
					i += n
					o += n
					goto escape
				}
			}
		}
		// The last bytes, one at a time.
		for i < len(s) && s[i] != '\\' {
			out[o] = s[i]
			i++
			o++
		}
		if i >= len(s) {
			return out[:o], true
		}
	escape:
		if i+1 >= len(s) {
			return nil, false
		}
		c := s[i+1]
		if d := Unescaped[c]; d != 0 {
			out[o] = d
			i += 2
			o++
			continue
		}
		if c != 'u' {
			return nil, false
		}
		r, ok := Hex4(s, i+2)
		if !ok {
			return nil, false
		}
		i += 6
		if utf16.IsSurrogate(r) {
			if r2, ok := Hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					o += utf8.EncodeRune(out[o:], d)
					i += 6
					continue
				}
			}
			r = utf8.RuneError
		}
		o += utf8.EncodeRune(out[o:], r)
	}
}

// Unescaped[c] is the byte the two-byte escape of c stands for (0: none).
var Unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// CoerceUTF8 replaces every byte of an invalid UTF-8 sequence with U+FFFD,
// as encoding/json does.
func CoerceUTF8(b []byte) string {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return string(out)
}
