package detect

// Hand matchers for the rules that are lists of words: the healthcare
// dictionaries (`\b(term|...)\b`) and the HR and finance terms
// (`\b(?:word|...)\b`). Each tries the words in the expression's order,
// which is the order Go's leftmost-first alternation prefers, and takes
// the first one that is followed by Go's ASCII \b (matchAt then checks
// Python's Unicode boundaries). A byte above 0x7f where a word is compared
// (a letter that may fold to one of the word's, or a non-ASCII word) leaves
// the start to the expression. rules_match_test.go holds each Matcher to
// its rule's anchored expression.

// wordList is the alternatives of a word rule, lower case, in the
// expression's order; tail marks a word the expression follows with \w*.
type wordList struct {
	words []string
	tail  []bool
}

// Matcher returns the rule's hand Matcher over the list.
func (wl *wordList) Matcher() func(t string, p int, m []int) int {
	return func(t string, p int, m []int) int {
		// Most words differ from the text at their first byte: that byte,
		// and its lower case for a letter, is read once for all of them.
		c, f := byteAt(t, p), byte(0)
		switch {
		case c >= 0x80:
			return -1
		case isLetter(c):
			f = c | 0x20
		case p < len(t):
			f = c
		}
		for k, w := range wl.words {
			if p < len(t) && w != "" && w[0] != c && w[0] != f {
				continue
			}
			e, ok := foldWordAt(t, p, w)
			if e < 0 {
				return -1
			}
			if !ok {
				continue
			}
			if wl.tail[k] {
				// \w* then \b: the run of ASCII word bytes, after which the
				// boundary always holds. Under (?i) \w also takes the Kelvin
				// sign and the long s: a byte above 0x7f after the run
				// leaves it to the expression.
				for e < len(t) && asciiWord[t[e]] {
					e++
				}
				if e < len(t) && t[e] >= 0x80 {
					return -1
				}
			} else if e < len(t) && asciiWord[t[e]] {
				continue // no \b after the word
			}
			m[0], m[1] = p, e
			return 1
		}
		return 0
	}
}

// foldWordAt compares t at p with w (lower case) in any ASCII case: the
// end of the word in t and true when they agree, false when an ASCII byte
// differs, and -1 when a byte of t above 0x7f is reached.
func foldWordAt(t string, p int, w string) (int, bool) {
	for k := 0; k < len(w); k++ {
		if p+k >= len(t) {
			return p + k, false
		}
		c := t[p+k]
		if c >= 0x80 {
			return -1, false
		}
		if c != w[k] && (c|0x20 != w[k] || !isLetter(c)) {
			return p + k, false
		}
	}
	return p + len(w), true
}

// words is a wordList of plain words (no \w* tail).
func words(ws ...string) *wordList {
	return &wordList{words: ws, tail: make([]bool, len(ws))}
}
