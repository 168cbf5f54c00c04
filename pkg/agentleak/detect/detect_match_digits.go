package detect

import (
	"unicode"
	"unicode/utf8"
)

// Hand matchers for the digit rules on ASCII text. Each follows the order
// in which Go's backtracking tries its expression (greedy parts longest
// first, alternatives left to right) and returns the match the expression
// would; a byte above 0x7f where it reads (a Unicode digit or space the
// expression may take) leaves the start to the expression, except for the
// card rule, whose Unicode form Go's expression cannot give (matchCardRunes).
// rules_match_test.go holds each to its rule's anchored expression.

// goSpace: an ASCII byte the rules' \s takes: Go's \s (\t \n \f \r and the
// space) widened by pyClasses to Python's, with \v and \x1c-\x1f.
func goSpace(c byte) bool {
	return c == ' ' || c-'\t' <= '\r'-'\t' || c-0x1c <= 3
}

// matchFixed matches a fixed-width shape at p: 'd' a digit, '?' a space or
// dash, any other byte itself (the SSN and SIN patterns, whose trailing
// \b the scanner checks).
func matchFixed(shape string) func(t string, p int, m []int) int {
	return func(t string, p int, m []int) int {
		for k := 0; k < len(shape); k++ {
			if p+k >= len(t) {
				return 0
			}
			c := t[p+k]
			if c >= 0x80 {
				return -1
			}
			switch s := shape[k]; s {
			case 'd':
				if !isDigit(c) {
					return 0
				}
			case '?':
				if c != ' ' && c != '-' {
					return 0
				}
			default:
				if c != s {
					return 0
				}
			}
		}
		m[0], m[1] = p, p+len(shape)
		return 1
	}
}

// matchCard is `(?:\d[ -]?){13,16}\b` at p. The greedy walk takes up to 16
// digits, each with the space or dash after it; backtracking then tries,
// from the longest, each count of digits from 16 down to 13: the end after
// the separator, then the end before it, the first where \b holds.
func matchCard(t string, p int, m []int) int {
	var ends [16][2]int // per digit: the end with its separator (or -1), without
	n, i := 0, p
	for n < 16 && i < len(t) {
		c := t[i]
		if c >= 0x80 {
			return matchCardRunes(t, p, m)
		}
		if !isDigit(c) {
			break
		}
		i++
		ends[n] = [2]int{-1, i}
		if i < len(t) && (t[i] == ' ' || t[i] == '-') {
			i++
			ends[n][0] = i
		}
		n++
	}
	if i < len(t) && t[i] >= 0x80 {
		return matchCardRunes(t, p, m) // a Unicode digit may go on, or decide \b
	}
	return cardEnd(t, p, m, &ends, n)
}

// matchCardRunes is matchCard for text with characters above 0x7f near p,
// with Python's meanings, which Go's regexp cannot give a variable-width
// pattern: \d is any Unicode decimal digit and the final \b is judged on
// Unicode word characters (so a card written in Arabic-Indic or full-width
// digits ends where Python's engine ends it). The walk and the order of the
// tries are matchCard's.
func matchCardRunes(t string, p int, m []int) int {
	var ends [16][2]int
	n, i := 0, p
	for n < 16 && i < len(t) {
		r, w := utf8.DecodeRuneInString(t[i:])
		if !unicode.IsDigit(r) {
			break
		}
		i += w
		ends[n] = [2]int{-1, i}
		if i < len(t) && (t[i] == ' ' || t[i] == '-') {
			i++
			ends[n][0] = i
		}
		n++
	}
	return cardEnd(t, p, m, &ends, n)
}

// cardEnd tries the ends of the n digits walked, from the longest count
// down to 13 digits, each with its separator and then without, and takes
// the first where Python's \b holds.
func cardEnd(t string, p int, m []int, ends *[16][2]int, n int) int {
	for j := n - 1; j >= 12; j-- {
		for _, e := range ends[j] {
			if e >= 0 && unicodeBound(t, e) {
				m[0], m[1] = p, e
				return 1
			}
		}
	}
	return 0
}

// phoneSep: the phone pattern's [-.\s] on ASCII.
func phoneSep(c byte) bool { return c == '-' || c == '.' || goSpace(c) }

// matchPhone is the phone pattern at p: the optional prefix (a '+', one
// to three digits, longest first, and a separator, taken first), then the
// core, (ddd) or ddd, a separator, ddd, a separator, dddd; the first
// prefix the core follows, else the core at p. A match is at most 19
// bytes: a byte above 0x7f among the first 19 leaves it to the expression.
func matchPhone(t string, p int, m []int) int {
	end := min(len(t), p+19)
	for i := p; i < end; i++ {
		if t[i] >= 0x80 {
			return -1
		}
	}
	s := p
	if byteAt(t, p) == '+' {
		s++
	}
	run := 0
	for run < 3 && s+run < len(t) && isDigit(t[s+run]) {
		run++
	}
	for k := run; k >= 1; k-- {
		q := s + k
		if phoneSep(byteAt(t, q)) {
			if e := phoneCoreEnd(t, q+1); e > 0 {
				m[0], m[1] = p, e
				return 1
			}
		}
		if e := phoneCoreEnd(t, q); e > 0 {
			m[0], m[1] = p, e
			return 1
		}
	}
	if e := phoneCoreEnd(t, p); e > 0 {
		m[0], m[1] = p, e
		return 1
	}
	return 0
}

// phoneCoreEnd is the end of the phone pattern's core at q on ASCII, or 0.
func phoneCoreEnd(t string, q int) int {
	i := q
	if byteAt(t, i) == '(' {
		if !digitRun(t, i+1, 3) || byteAt(t, i+4) != ')' {
			return 0
		}
		i += 5
	} else {
		if !digitRun(t, i, 3) {
			return 0
		}
		i += 3
	}
	for _, n := range [2]int{3, 4} {
		if !phoneSep(byteAt(t, i)) || !digitRun(t, i+1, n) {
			return 0
		}
		i += 1 + n
	}
	return i
}

// digitRun: n ASCII digits at i.
func digitRun(t string, i, n int) bool {
	if i+n > len(t) {
		return false
	}
	for k := i; k < i+n; k++ {
		if !isDigit(t[k]) {
			return false
		}
	}
	return true
}

// clientWords are the client identifier pattern's keywords, lower case,
// in its order.
var clientWords = []string{"acc", "acct", "cust", "client", "user", "member"}

// matchClientID is `(?i)(?:ACC|ACCT|CUST|CLIENT|USER|MEMBER)[-_]?\d{3,}\b`
// at p. At most one keyword can be followed by digits (ACC before ACCT
// fails on the T), the separator is taken when there, and the digits run
// to their end, where \b holds unless a letter or underscore follows (a
// shorter run would end before a digit).
func matchClientID(t string, p int, m []int) int {
	for _, w := range clientWords {
		e, ok := foldWordAt(t, p, w)
		if e < 0 {
			return -1
		}
		if !ok {
			continue
		}
		if c := byteAt(t, e); c == '-' || c == '_' {
			if d := byteAt(t, e+1); isDigit(d) || d >= 0x80 {
				e++
			}
		}
		i := e
		for i < len(t) && isDigit(t[i]) {
			i++
		}
		if i < len(t) && t[i] >= 0x80 {
			return -1
		}
		if i-e < 3 {
			if c := byteAt(t, e); c >= 0x80 {
				return -1
			}
			continue
		}
		if i < len(t) && asciiWord[t[i]] {
			continue
		}
		m[0], m[1] = p, i
		return 1
	}
	return 0
}
