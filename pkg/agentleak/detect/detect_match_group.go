package detect

import (
	"unicode"
	"unicode/utf8"
)

// Hand matchers for rules that report group 1 after a keyword: the person
// name and the finance and salary amounts. Each fills the match and the
// group the way Go's backtracking finds them first. In these patterns no
// part can give back what it took to let the next one match (a run of
// separators is followed by what no separator is), so each part is the
// longest run of its class, and only the keyword's alternatives (and the
// optional word after it) are tried in turn. A byte above 0x7f where a
// keyword or a separator is read (a case fold of a letter, a Unicode
// space) leaves the start to the expression. rules_match_test.go holds
// each to its rule's expression.

// matchName is the person-name pattern after its leading \b:
// `(?i:patient|...|prof)\b["'\s:_]+([A-ZÀ-Ý][a-zà-ÿ]+(?:[ -][A-ZÀ-Ý][a-zà-ÿ]+){1,2})`.
// The keyword is the whole run of ASCII letters at p (a \b follows it, and
// of two keywords that could end at a \b there, such as mr and mrs, only
// one does).
func matchName(t string, p int, m []int) int {
	e := p
	for e < len(t) && isLetter(t[e]) {
		e++
	}
	if e < len(t) && t[e] >= 0x80 {
		return -1
	}
	if e < len(t) && asciiWord[t[e]] || !nameKeyword(t[p:e]) {
		return 0
	}
	i := e
	for i < len(t) {
		c := t[i]
		if c >= 0x80 {
			if unicodeSpaceAt(t, i) {
				return -1
			}
			break
		}
		if c != '"' && c != '\'' && c != ':' && c != '_' && !keySpace(c) {
			break
		}
		i++
	}
	if i == e {
		return 0
	}
	end := nameWordEnd(t, i)
	if end < 0 {
		return 0
	}
	words := 0
	for words < 2 {
		if c := byteAt(t, end); c != ' ' && c != '-' {
			break
		}
		next := nameWordEnd(t, end+1)
		if next < 0 {
			break
		}
		end = next
		words++
	}
	if words == 0 {
		return 0
	}
	m[0], m[1], m[2], m[3] = p, end, i, end
	return 1
}

// nameWordEnd is the end of `[A-ZÀ-Ý][a-zà-ÿ]+` at i, or -1. À-Ý and à-ÿ
// are the characters U+00C0-U+00DD and U+00E0-U+00FF, two bytes each,
// 0xC3 then 0x80-0x9D or 0xA0-0xBF.
func nameWordEnd(t string, i int) int {
	switch c := byteAt(t, i); {
	case isUpper(c):
		i++
	case c == 0xC3 && i+1 < len(t) && t[i+1] >= 0x80 && t[i+1] <= 0x9D:
		i += 2
	default:
		return -1
	}
	s := i
	for i < len(t) {
		if c := t[i]; isLower(c) {
			i++
		} else if c == 0xC3 && i+1 < len(t) && t[i+1] >= 0xA0 && t[i+1] <= 0xBF {
			i += 2
		} else {
			break
		}
	}
	if i == s {
		return -1
	}
	return i
}

// unicodeSpaceAt: the character at i (above 0x7f) is one of the rules'
// widened \s (Python's spaces): a space separator or U+0085.
func unicodeSpaceAt(t string, i int) bool {
	r, _ := utf8.DecodeRuneInString(t[i:])
	return r == 0x85 || unicode.In(r, unicode.Z)
}

// amountMatch is a finance or salary pattern after its leading \b:
// `(?i)(?:KEY|...)(?:\s*(?:OPT|...))?["'\s:=#-]*` and then the value,
// `\$?([0-9][0-9,]{more,})`, or `([0-9]{digits,})` when digits is set.
type amountMatch struct {
	keys, opts   []string // lower case, in the expression's order
	more, digits int
}

func (a *amountMatch) match(t string, p int, m []int) int {
	for _, k := range a.keys {
		e, ok := foldWordAt(t, p, k)
		if e < 0 {
			return -1
		}
		if !ok {
			continue
		}
		if len(a.opts) > 0 {
			// The optional word, taken first: each of them after the
			// spaces, then none.
			i := e
			for i < len(t) && keySpace(t[i]) {
				i++
			}
			if i < len(t) && t[i] >= 0x80 && unicodeSpaceAt(t, i) {
				return -1
			}
			for _, o := range a.opts {
				x, ok := foldWordAt(t, i, o)
				if x < 0 {
					return -1
				}
				if !ok {
					continue
				}
				if g, end := a.value(t, x); g == -1 {
					return -1
				} else if g >= 0 {
					m[0], m[1], m[2], m[3] = p, end, g, end
					return 1
				}
			}
		}
		if g, end := a.value(t, e); g == -1 {
			return -1
		} else if g >= 0 {
			m[0], m[1], m[2], m[3] = p, end, g, end
			return 1
		}
	}
	return 0
}

// value is the separators at i and the value after them: where the value
// begins and ends, -2 for none, -1 when a Unicode space may be among the
// separators.
func (a *amountMatch) value(t string, i int) (g, end int) {
	for i < len(t) {
		c := t[i]
		if c >= 0x80 {
			if unicodeSpaceAt(t, i) {
				return -1, 0
			}
			break
		}
		if c != '"' && c != '\'' && c != ':' && c != '=' && c != '#' && c != '-' && !keySpace(c) {
			break
		}
		i++
	}
	if a.digits > 0 {
		e := i
		for e < len(t) && isDigit(t[e]) {
			e++
		}
		if e-i < a.digits {
			return -2, 0
		}
		return i, e
	}
	if byteAt(t, i) == '$' {
		if e := moneyEnd(t, i+1, a.more); e > 0 {
			return i + 1, e
		}
		return -2, 0 // without the '$' the value would begin at it
	}
	if e := moneyEnd(t, i, a.more); e > 0 {
		return i, e
	}
	return -2, 0
}

// moneyEnd is the end of `[0-9][0-9,]{more,}` at i, or 0.
func moneyEnd(t string, i, more int) int {
	if !isDigit(byteAt(t, i)) {
		return 0
	}
	e := i + 1
	for e < len(t) && (isDigit(t[e]) || t[e] == ',') {
		e++
	}
	if e-i-1 < more {
		return 0
	}
	return e
}
