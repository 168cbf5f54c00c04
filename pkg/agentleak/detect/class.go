package detect

import (
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// The class pass: one walk over an event's text that files where each
// start class can begin and where the trigger words are (findStarts).
// Most of a trace is lower-case letters and spaces, so the walk is built
// around words: a byte-kind table sends every byte down one path, a run of
// lower-case letters is crossed eight bytes at a time, and only what a
// word's first letter, its length and the byte after it allow is looked at
// more closely. TestClassPassMatchesReference holds it to a byte-by-byte
// copy of the pass it replaced.

// Byte kinds of the class pass (triggerTrie.kind): a kind's low bit marks
// the bytes a trigger word can begin with (kindTrig), so that one compare
// tells a lower-case letter (k < kindSep) and another a byte that starts
// nothing (k == kindSep).
const (
	kindLower uint8 = 2 * iota // a-z
	kindSep                    // a space, ASCII punctuation or control byte that starts nothing
	kindUpper                  // A-Z
	kindDigit                  // 0-9
	kindUnder                  // '_': a word byte that starts nothing
	kindPhone                  // '+' and '(': a phone number can start there
	kindAt                     // '@': an address's local part ends before it
	kindHigh                   // a byte above 0x7f

	kindTrig uint8 = 1
)

// byteKinds is the class pass's table for a trie whose words can begin
// with the bytes of first.
func byteKinds(first *[256]bool) (k [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		switch {
		case isLower(b):
			k[c] = kindLower
		case isUpper(b):
			k[c] = kindUpper
		case isDigit(b):
			k[c] = kindDigit
		case b == '_':
			k[c] = kindUnder
		case b == '+' || b == '(':
			k[c] = kindPhone
		case b == '@':
			k[c] = kindAt
		case b >= 0x80:
			k[c] = kindHigh
		default:
			k[c] = kindSep
		}
		if first[c] {
			k[c] |= kindTrig
		}
	}
	return k
}

// Bytes of eight repeated, for the word-at-a-time tests.
const (
	swarLow  = 0x0101010101010101
	swarHigh = 0x8080808080808080
)

// load64 reads eight bytes of s at i, little-endian (the compiler makes
// one load of it); i+8 <= len(s).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// word8 reads the eight bytes of s at i, little-endian, zeros past the
// end of s: a zero byte is no letter, and it is what byteAt reads there.
func word8(s string, i int) uint64 {
	if i+8 <= len(s) {
		return load64(s, i)
	}
	return word8Tail(s, i)
}

// word8Tail is word8 near the end of s.
func word8Tail(s string, i int) uint64 {
	var v uint64
	for k := len(s) - 1; k >= i; k-- {
		v = v<<8 | uint64(s[k])
	}
	return v
}

// notLower has the high bit set in every byte of v that is not a-z. The
// sums stay within their bytes: the high bits are cleared first.
func notLower(v uint64) uint64 {
	x := v &^ swarHigh
	ge := x + (0x80-'a')*swarLow   // high bit: x >= 'a'
	gt := x + (0x80-'z'-1)*swarLow // high bit: x > 'z'
	return (^ge | gt | v) & swarHigh
}

// upperEnd returns the end of the run of capitals at i.
func upperEnd(t string, i int) int {
	for i < len(t) && isUpper(t[i]) {
		i++
	}
	return i
}

// firstNotLower is notLower for the first byte of v that is not a-z: its
// high bit is set, and no bit below it. Past it the bytes are not told
// apart (a byte above 0x7f carries into the next), which spares the
// masking of the high bits.
func firstNotLower(v uint64) uint64 {
	ge := v + (0x80-'a')*swarLow   // high bit: v >= 'a', below the first byte above 0x7f
	gt := v + (0x80-'z'-1)*swarLow // high bit: v > 'z', likewise
	return (^ge | gt | v) & swarHigh
}

// lowerEnd returns the end of the run of lower-case letters at i.
func lowerEnd(t string, i int) int {
	for i+8 <= len(t) {
		if m := notLower(load64(t, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(t) && isLower(t[i]) {
		i++
	}
	return i
}

// findStarts lists, in one pass over the text, the start positions of
// every character class and of every trigger word. A class holds only the
// positions its rules' first characters allow (upper-case starts are two
// capitals, letter starts a letter and a digit, hex starts a short hex run
// and a colon, email starts the local part before an '@'): a superset of
// where its rules can match, and far fewer positions than every word
// start. Trigger words are looked up where triggerTrie.each (the tests'
// reference) would: not inside a run of ASCII word bytes. It reports that the text holds a
// character that folds to an ASCII letter (foldsToASCII): the starts are
// then incomplete, and the caller runs the plain expressions.
func (ps *PatternSet) findStarts(t string) (folds bool) {
	st := ps.state
	st.clearStarts()
	trie := ps.trie // one load, not two a byte
	n := len(t)
	prevWord, prevDigit := false, false // the character before i: a word character, a digit (Unicode)
	for i := 0; i < n; {
		c := t[i]
		k := trie.kind[c]
		if !prevWord && k&^(kindTrig|kindUpper) == 0 && i+8 <= n && (k < kindSep || !isUpper(t[i+1])) {
			// Words, each with the space or separators after it,
			// crossed in a loop of their own up to the last (not from
			// two capitals, which it refuses).
			if ws, j, inWord := ps.lowerWords(t, i); inWord {
				prevWord, prevDigit = true, isDigit(t[j-1])
				i = j
				continue
			} else if j > ws {
				if c1 := byteAt(t, j); j-ws <= 4 && shortNext[c1] {
					st.shortWord(t, ws, j, c1)
				}
				prevWord, prevDigit = true, false
				i = j
				continue
			} else if j > i {
				prevDigit = false
				i = j
				continue
			}
			// A capital that starts classes.
		}
		if k < kindSep {
			// A run of lower-case letters.
			var v uint64
			if i+8 <= n {
				v = load64(t, i)
			} else {
				v = word8Tail(t, i)
			}
			// The run is t[i:j]; c1 follows it (0 at the end of the text).
			var j int
			var c1 byte
			if m := notLower(v); m != 0 {
				d := bits.TrailingZeros64(m) >> 3
				j, c1 = i+d, byte(v>>(8*d))
			} else {
				j = lowerEnd(t, i+8)
				c1 = byteAt(t, j)
			}
			if !prevWord {
				// A word start: a trigger word, a postal code (a letter
				// and a digit) or an IPv6 group (one to four hex digits and
				// a colon) can begin here; the two classes only in a run of
				// at most four letters that a digit, a colon, A-F or a
				// non-ASCII character follows.
				if k == kindLower|kindTrig {
					// trie.maybe(v), written out: the call costs more
					// than the test.
					w, b := hash3(uint32(v))
					if trie.prefix3[0][w]&(1<<(b&63)) != 0 && (trie.prefix3[1][w]&(1<<(b&63)) != 0 || trie.maybe4(uint32(v))) {
						ps.triggersAt(t, i)
					}
				}
				if j-i <= 4 && shortNext[c1] {
					st.shortWord(t, i, j, c1)
				}
			} else if k == kindLower|kindTrig && t[i-1] >= 0x80 && trie.maybe(v) {
				// After a non-ASCII letter: no class starts, but a trigger
				// word can (évaluation holds valuation).
				ps.triggersAt(t, i)
			}
			// A space after the word is taken with it.
			if c1 == ' ' {
				j++
				prevWord = false
			} else {
				prevWord = true
			}
			prevDigit = false
			i = j
			continue
		}
		if k == kindSep {
			// A run of bytes that start nothing, crossed in a loop of its
			// own.
			prevWord, prevDigit = false, false
			i++
			for i < n && trie.kind[t[i]] == kindSep {
				i++
			}
			continue
		}
		switch k &^ kindTrig {
		case kindUpper:
			if prevWord {
				// Inside a word: a trigger starts only after a non-ASCII letter.
				if k&kindTrig != 0 && t[i-1] >= 0x80 && trie.maybe(word8(t, i)) {
					ps.triggersAt(t, i)
				}
				// The capitals after it start nothing (after an ASCII letter).
				prevDigit = false
				i = upperEnd(t, i+1)
				continue
			}
			i = ps.upperStart(t, i, k, c)
			prevWord, prevDigit = true, false
		case kindDigit:
			if k&kindTrig != 0 && (i == 0 || !asciiWord[t[i-1]]) && trie.maybe(word8(t, i)) {
				ps.triggersAt(t, i)
			}
			// The rest of the run starts nothing (a word byte after a digit).
			j := i + 1
			for j < n && isDigit(t[j]) {
				j++
			}
			if !prevWord {
				st.add(startDigit, i)
				// An IPv6 group: the hex run goes on past the digits
				// with hex letters, or a colon ends it.
				if c1 := byteAt(t, j); j-i <= 4 && (c1 == ':' || (c1|0x20)-'a' < 6) && hexColon(t, i) {
					st.add(startHex, i)
				}
			}
			if !prevDigit {
				st.add(startPhone, i)
			}
			i = j
			prevWord, prevDigit = true, true
			if i < n && trie.kind[t[i]] == kindSep {
				// The separators after the digits, at once.
				prevWord, prevDigit = false, false
				for i++; i < n && trie.kind[t[i]] == kindSep; i++ {
				}
			}
		case kindUnder:
			if k&kindTrig != 0 && (i == 0 || !asciiWord[t[i-1]]) && trie.maybe(word8(t, i)) {
				ps.triggersAt(t, i)
			}
			prevWord, prevDigit = true, false
			i++
		default:
			var folds bool
			i, prevWord, prevDigit, folds = ps.otherByte(t, i, k, prevWord, prevDigit)
			if folds {
				return true
			}
		}
	}
	return false
}

// upperStart handles a capital that starts a word (findStarts): the
// capital and the lower-case letters after it are taken at once; two
// capitals, a capital and a digit, or one to four hex letters and a colon
// can start a class. It returns where the word's letters end.
func (ps *PatternSet) upperStart(t string, i int, k, c byte) int {
	st, trie, n := ps.state, ps.trie, len(t)
	var v uint64
	if i+8 <= n {
		v = load64(t, i)
	} else {
		v = word8Tail(t, i)
	}
	if k&kindTrig != 0 {
		w, b := hash3(uint32(v))
		if trie.prefix3[0][w]&(1<<(b&63)) != 0 && (trie.prefix3[1][w]&(1<<(b&63)) != 0 || trie.maybe4(uint32(v))) {
			ps.triggersAt(t, i)
		}
	}
	var j int
	if m := notLower(v) &^ 0xff; m != 0 {
		j = i + bits.TrailingZeros64(m)>>3
	} else {
		j = lowerEnd(t, i+8)
	}
	if j == i+1 {
		c1 := byte(v >> 8)
		if isUpper(c1) {
			st.add(startUpper, i)
		}
		if isDigit(c1) || c1 >= 0x80 {
			st.add(startLetter, i)
		}
	}
	if c-'A' < 6 && j-i <= 4 && hexColon(t, i) {
		st.add(startHex, i)
	}
	return j
}

// otherByte handles a byte that is not a word byte (findStarts): a
// trigger word can begin here whatever comes before; phone, email and
// non-ASCII starts. It returns the next position and the word and digit
// state after it, and folds when the text holds a character that folds to
// an ASCII letter.
func (ps *PatternSet) otherByte(t string, i int, k uint8, prevWord, prevDigit bool) (next int, word, digit, folds bool) {
	st, trie := ps.state, ps.trie
	if k&kindTrig != 0 && trie.maybe(word8(t, i)) {
		ps.triggersAt(t, i)
	}
	switch k &^ kindTrig {
	case kindPhone:
		if !prevDigit {
			st.add(startPhone, i)
		}
	case kindAt:
		st.emailStart(t, i)
	case kindHigh:
		r, w := utf8.DecodeRuneInString(t[i:])
		if r == '\u212a' || r == '\u017f' {
			return i, false, false, true
		}
		if uint32(r-'\u2010') <= '\u2027'-'\u2010' {
			// Dashes, quotes, bullets, the ellipsis: punctuation, spared
			// the Unicode tables.
			return i + w, false, false, false
		}
		d := unicode.IsDigit(r)
		if d && !prevWord {
			st.add(startDigit, i)
		}
		if d && !prevDigit {
			st.add(startPhone, i)
		}
		return i + w, isWordRune(r), d, false
	}
	return i + 1, false, false, false
}

// lowerWords crosses, from the word start i (a letter; i+8 <= len(t)),
// words of letters, lower-case but for a capital first, and the space or
// the run of bytes that start nothing after each (a colon after a word of
// at most four letters filed first, shortWord), filing the trigger words
// at their starts; a word that an underscore or a capital follows goes on
// as an identifier of letters and underscores (a short word's classes
// filed first), as do two capitals at a later word start (filed as the
// main loop would), an identifier that a hyphen, '@' or '(' follows goes
// on after it (punctAfterWord), and a run of digits at a later word start
// is filed (digitsAt) and crossed. The last fewer than eight bytes are
// crossed the same way, words of letters only. It stops at the first word
// that something else follows, t[ws:j], its start already tried for
// trigger words (the caller files its classes, shortWord), or inside an
// identifier or after digits that something else follows (inWord, at j),
// or where no such word begins after a separator (ws == j: the caller goes
// on there, its first byte unseen). It refuses a capital that starts
// classes (ws == j == i).
func (ps *PatternSet) lowerWords(t string, i int) (ws, j int, inWord bool) {
	trie := ps.trie
	kind, p3short, p4 := &trie.kind, &trie.prefix3[1], &trie.prefix4
	for i+8 <= len(t) {
		ws = i
		v := loadString64(t, i)
		// firstNotLower(v | 0x20) written out: the first byte's 0x20 bit
		// set, a capital counts as a letter.
		x := v | 0x20
		m := (^(x + (0x80-'a')*swarLow) | (x + (0x80-'z'-1)*swarLow) | v) & swarHigh
		if m&0x8080 != 0 {
			k0 := kind[byte(v)]
			if k0&^kindTrig == kindDigit {
				// A number after a separator.
				if k0&kindTrig != 0 && trie.maybe(v) {
					ps.triggersAt(t, i)
				}
				if i = ps.digitsAt(t, i); i < len(t) && kind[loadString8(t, i)] == kindSep {
					for i++; i < len(t) && kind[loadString8(t, i)] == kindSep; i++ {
					}
					continue
				}
				if i < len(t) && ps.punctAfterWord(t, i, true) {
					i++
					continue
				}
				return i, i, true
			}
			if m&0x80 != 0 {
				// Not a letter, after a separator or one of
				// punctAfterWord's bytes: the bytes that start nothing,
				// those, and the punctuation of U+2010-U+2027 (dashes,
				// quotes: three bytes, E2 80 90-A7), the commonest here,
				// are crossed as the main loop would.
				switch {
				case k0 == kindSep:
					for i++; i < len(t) && kind[loadString8(t, i)] == kindSep; i++ {
					}
					continue
				case ps.punctAfterWord(t, i, false):
					i++
					continue
				case v&0xffff == 0x80e2 && byte(v>>16)-0x90 <= 0xa7-0x90:
					i += 3
					continue
				}
				return i, i, false
			}
			// A capital that a capital, a digit or a byte above 0x7f
			// follows starts classes; one that anything else follows is
			// a word of one letter. Two capitals (AI, HR, an acronym)
			// are filed here as the main loop would: a trigger word, an
			// upper-case start, an IPv6 group's hex run, and the letters
			// and underscores after them inside the word.
			c1 := byte(v >> 8)
			if v&0x20 == 0 && isUpper(c1) {
				w, b := hash3(uint32(v))
				g := hash4(uint32(v))
				if b2u(p3short[w]&(1<<(b&63)) != 0)|b2u(p4[g>>6]&(1<<(g&63)) != 0) != 0 {
					ps.triggersAt(t, i)
				}
				ps.state.add(startUpper, i)
				if byte(v)-'A' < 6 && hexColon(t, i) {
					ps.state.add(startHex, i)
				}
				for i += 2; i < len(t) && identRest[loadString8(t, i)]; i++ {
				}
				if i == len(t) || kind[t[i]] != kindSep {
					if i < len(t) && ps.punctAfterWord(t, i, false) {
						i++
						continue
					}
					return i, i, true
				}
				for i++; i < len(t) && kind[loadString8(t, i)] == kindSep; i++ {
				}
				continue
			}
			if v&0x20 == 0 && (isDigit(c1) || c1 >= 0x80) {
				return i, i, false
			}
		}
		// trie.maybe(v) without its first test, which about one word
		// start in six passes here: a branch on it mispredicts often,
		// while the two bits below, or'd, pass one in sixteen (the words
		// of two or three bytes, and prefix4, whose few false passes
		// the first test spared cost less than the mispredictions).
		w, b := hash3(uint32(v))
		g := hash4(uint32(v))
		if b2u(p3short[w]&(1<<(b&63)) != 0)|b2u(p4[g>>6]&(1<<(g&63)) != 0) != 0 {
			ps.triggersAt(t, i)
		}
		var c1 byte
		if m != 0 {
			// c1 is the first byte that is not a letter.
			j = i + bits.TrailingZeros64(m)>>3
			c1 = loadString8(t, j)
		} else {
			// Eight letters or more.
			j = i + 8
			for {
				if j+8 > len(t) {
					j = lowerEnd(t, j)
					break
				}
				if m = firstNotLower(loadString64(t, j)); m != 0 {
					j += bits.TrailingZeros64(m) >> 3
					break
				}
				j += 8
			}
			if j == len(t) {
				return j, j, false
			}
			c1 = loadString8(t, j)
		}
		i = j + 1
		if c1 == ' ' {
			continue
		}
		if c1 == '_' || isUpper(c1) {
			// An identifier or a camel-case word: the letters and
			// underscores after the underscore or the capital are inside
			// the word and start nothing (a short word and A-F can start
			// an IPv6 group: "\\nEmma" in a tool's quoted output).
			if c1-'A' < 6 && j-ws <= 4 {
				ps.state.shortWord(t, ws, j, c1)
			}
			for i < len(t) && identRest[loadString8(t, i)] {
				i++
			}
			if i == len(t) || kind[t[i]] != kindSep {
				if i < len(t) && ps.punctAfterWord(t, i, false) {
					i++
					continue
				}
				return i, i, true
			}
			for i++; i < len(t) && kind[loadString8(t, i)] == kindSep; i++ {
			}
			continue
		}
		// A separator starts no class after the word, but for a colon
		// after a short word (an IPv6 group): it is crossed with the
		// bytes like it after it.
		if kind[c1] != kindSep {
			if ps.punctAfterWord(t, j, false) {
				i = j + 1
				continue
			}
			return ws, j, false
		}
		if c1 == ':' && j-ws <= 4 {
			ps.state.shortWord(t, ws, j, c1)
		}
		for i < len(t) && kind[loadString8(t, i)] == kindSep {
			i++
		}
	}
	// The last bytes, fewer than eight: words of lower-case letters (a
	// capital first) and the separators after them, read with word8Tail;
	// anything else is left to the caller.
	for i < len(t) {
		v := word8Tail(t, i)
		x := v | 0x20
		m := (^(x + (0x80-'a')*swarLow) | (x + (0x80-'z'-1)*swarLow) | v) & swarHigh
		if m&0x80 != 0 || v&0x20 == 0 && m&0x8000 != 0 {
			return i, i, false
		}
		w, b := hash3(uint32(v))
		g := hash4(uint32(v))
		if b2u(p3short[w]&(1<<(b&63)) != 0)|b2u(p4[g>>6]&(1<<(g&63)) != 0) != 0 {
			ps.triggersAt(t, i)
		}
		ws, j = i, i+bits.TrailingZeros64(m)>>3
		if j == len(t) {
			return j, j, false
		}
		c1 := t[j]
		if kind[c1] != kindSep {
			return ws, j, false
		}
		if c1 == ':' && j-ws <= 4 {
			ps.state.shortWord(t, ws, j, c1)
		}
		for i = j + 1; i < len(t) && kind[t[i]] == kindSep; i++ {
		}
	}
	return i, i, false
}

// punctAfterWord files what the byte at i, after a word (a number when
// afterDigit), starts if it is a hyphen, an '@' or a '(', the commonest
// bytes after a word that are not separators (kindSep), as findStarts'
// main loop would, and reports whether it was one: lowerWords then goes
// on after it instead of returning to that loop.
func (ps *PatternSet) punctAfterWord(t string, i int, afterDigit bool) bool {
	c := loadString8(t, i)
	if c != '-' && c != '@' && c != '(' {
		return false
	}
	trie := ps.trie
	k := trie.kind[c]
	if k&kindTrig != 0 && trie.maybe(word8(t, i)) {
		ps.triggersAt(t, i)
	}
	switch k &^ kindTrig {
	case kindPhone:
		if !afterDigit {
			ps.state.add(startPhone, i)
		}
	case kindAt:
		ps.state.emailStart(t, i)
	}
	return true
}

// digitsAt files the classes of a run of ASCII digits at i, a word start
// after a separator (no digit before it), and returns its end.
func (ps *PatternSet) digitsAt(t string, i int) int {
	st := ps.state
	j := i + 1
	for j < len(t) && isDigit(t[j]) {
		j++
	}
	st.add(startDigit, i)
	if c1 := byteAt(t, j); j-i <= 4 && (c1 == ':' || (c1|0x20)-'a' < 6) && hexColon(t, i) {
		st.add(startHex, i)
	}
	st.add(startPhone, i)
	return j
}

// identRest marks ASCII letters and the underscore.
var identRest = func() (m [256]bool) {
	for c := 0; c < 256; c++ {
		m[c] = isLower(byte(c)|0x20) || c == '_'
	}
	return m
}()

// shortNext marks the bytes after a short run of lower-case letters that
// let it start a class (shortWord): a digit, a colon, A-F, or a byte above
// 0x7f.
var shortNext = func() (m [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		m[c] = isDigit(b) || b == ':' || b-'A' < 6 || b >= 0x80
	}
	return m
}()

// add files position i in start class c.
func (st *ruleState) add(c byte, i int) { st.cls[c] = append(st.cls[c], i) }

// shortWord files the classes a word of one to four letters, lower-case
// but for a capital first, t[i:j], that c1 follows (0 at the end of the text) begins: a postal code
// needs a one-letter run followed by a digit (any Unicode digit: a byte
// above 0x7f is let through), an IPv6 group a run of hex letters that the
// colon or more hex digits follow.
func (st *ruleState) shortWord(t string, i, j int, c1 byte) {
	if j == i+1 && (isDigit(c1) || c1 >= 0x80) {
		st.add(startLetter, i)
	}
	if (t[i]|0x20)-'a' < 6 && (c1 == ':' || isDigit(c1) || c1-'A' < 6) && hexColon(t, i) {
		st.add(startHex, i)
	}
}

// letterStart files an ASCII letter at a word start: a postal code begins
// with a letter and a digit (any Unicode digit), an IPv6 group with a short
// hex run and a colon.
func (st *ruleState) letterStart(t string, i int) {
	if c1 := byteAt(t, i+1); isDigit(c1) || c1 >= 0x80 {
		st.add(startLetter, i)
	}
	if (t[i]|0x20)-'a' < 6 && hexColon(t, i) {
		st.add(startHex, i)
	}
}

// emailStart files the start of the local part before the '@' at at.
func (st *ruleState) emailStart(t string, at int) {
	s := at
	for s > 0 && emailLocalByte[t[s-1]] {
		s--
	}
	if s < at {
		st.add(startEmail, s)
	}
}

// emailLocalByte marks the bytes of an address's local part: ASCII word
// bytes, '.', '+' and '-'.
var emailLocalByte = func() (m [256]bool) {
	for c := 0; c < 256; c++ {
		m[c] = asciiWord[c] || c == '.' || c == '+' || c == '-'
	}
	return m
}()

// hexColon: one to four hex digits at i, then a colon.
func hexColon(t string, i int) bool {
	k := 0
	for k < 5 && i+k < len(t) && (isDigit(t[i+k]) || (t[i+k]|0x20)-'a' < 6) {
		k++
	}
	return k >= 1 && k <= 4 && byteAt(t, i+k) == ':'
}

// triggersAt files the trigger words that begin at p, in the order the
// trie's walk (triggersWalk) files them: the words of two or three bytes
// whose first two bytes' hash3 is the text's, then the longer ones whose
// first four bytes' hash4 is the text's, each compared a word at a time,
// ASCII case folded.
func (ps *PatternSet) triggersAt(text string, p int) {
	tr := ps.trie
	if tr.short {
		ps.triggersWalk(text, p)
		return
	}
	var v uint64
	if p+8 <= len(text) {
		v = loadString64(text, p)
	} else {
		v = word8Tail(text, p)
	}
	w, b := hash3(uint32(v))
	if tr.prefix3[0][w]&(1<<(b&63)) == 0 {
		// No word begins with these three bytes: lowerWords' filter
		// leaves this test out, and one word start in sixteen that no
		// word begins at comes here.
		return
	}
	f := foldUpper(v)
	if tr.shortBits[w>>6]&(1<<(w&63)) != 0 {
		r := int(tr.shortRank[w>>6]) + bits.OnesCount64(tr.shortBits[w>>6]&(1<<(w&63)-1))
		words := tr.shortWords[tr.shortStart[r]:tr.shortStart[r+1]]
		for k := range words {
			if c := &words[k]; (f^c.w[0])&c.m[0] == 0 {
				ps.addTrigger(text, int(c.id), p)
			}
		}
	}
	g := hash4(uint32(v))
	if tr.prefix4[g>>6]&(1<<(g&63)) == 0 {
		return
	}
	r := int(tr.longRank[g>>6]) + bits.OnesCount64(tr.prefix4[g>>6]&(1<<(g&63)-1))
	var f1 uint64
	// The bucket as a slice of its own: the calls below cannot change it,
	// so it is not read from the trie again after each.
	words := tr.longWords[tr.longStart[r]:tr.longStart[r+1]]
	for k := range words {
		c := &words[k]
		if (f^c.w[0])&c.m[0] != 0 {
			continue
		}
		if c.n > 8 {
			if f1 == 0 {
				if p+16 <= len(text) {
					f1 = foldUpper(loadString64(text, p+8))
				} else {
					f1 = foldUpper(word8(text, p+8))
				}
			}
			if (f1^c.w[1])&c.m[1] != 0 {
				continue
			}
			if c.n > 16 && !foldedPrefix(text, p+16, c.rest) {
				continue
			}
		}
		ps.addTrigger(text, int(c.id), p)
	}
}

// foldUpper sets the 0x20 bit of the bytes of v that are A-Z.
func foldUpper(v uint64) uint64 {
	x := v &^ swarHigh
	up := (x + (0x80-'A')*swarLow) &^ (x + (0x80-'Z'-1)*swarLow) &^ v & swarHigh
	return v | up>>2
}

// foldedPrefix reports whether text at i begins with rest, ASCII case
// folded.
func foldedPrefix(text string, i int, rest string) bool {
	if len(text)-i < len(rest) {
		return false
	}
	for k := 0; k < len(rest); k++ {
		if foldASCII(text[i+k]) != rest[k] {
			return false
		}
	}
	return true
}

// triggersWalk files the trigger words that begin at p: triggerTrie.walk,
// each word filed as the walk reaches its end. A byte no word holds has
// class 0, and no state goes on with class 0: one test ends the walk.
func (ps *PatternSet) triggersWalk(text string, p int) {
	tr := ps.trie
	next, class, nc := tr.next, &tr.class, tr.nclass
	s := 0
	for i := p; i < len(text); i++ {
		v := next[s*nc+int(class[loadString8(text, i)])]
		if v == 0 {
			return
		}
		s = int(v &^ outMark)
		if v&outMark != 0 {
			for _, id := range tr.out[s] {
				ps.addTrigger(text, int(id), p)
			}
		}
	}
}

// clearStarts empties the start classes and the trigger positions of the
// rules the last text gave any.
func (st *ruleState) clearStarts() {
	for w, b := range st.trig {
		for b != 0 {
			ri := w<<6 | bits.TrailingZeros64(b)
			b &= b - 1
			st.cands[ri] = st.cands[ri][:0]
		}
		st.trig[w] = 0
	}
	st.unsorted = false
	for c := range st.cls {
		st.cls[c] = st.cls[c][:0]
	}
}

// b2u is 1 for true: or'ing two bit tests, each a BT and a SETC, costs
// one branch and no variable shifts.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// IsASCII reports whether s holds no byte above 0x7f, eight bytes at a
// time.
func IsASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&swarHigh != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
