package detect

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The key-name rules' hand Matcher. Each rule is
// `(?i)["']?\b(?:STEM)\b["']?\s*[:=]\s*["']?([^"'|,}\n]+)`, and its report
// is the value, group 1: the Matcher fills the match and the group the way
// Go's backtracking finds them. The stem's spellings are tried in the
// order the expression tries them; after one, the quote, the spaces before
// the colon and the colon can each be taken one way only, and the value
// begins at the first place the backtracking reaches that a value byte
// holds: after the spaces (and the quote there), else at the last of the
// spaces that is not a newline. A byte above 0x7f in the key or among the
// spaces (a case fold of a letter, a Unicode space) leaves the start to the
// expression. rules_match_test.go holds it to the rules' expressions.

// keyMatch is a key-name rule's spellings of its stem, lower case, in the
// order the expression tries them.
type keyMatch struct{ forms []string }

// newKeyMatch spells stem in the order Go's backtracking tries it:
// alternatives left to right, an optional part taken first.
func newKeyMatch(stem string) *keyMatch {
	re, err := syntax.Parse(stem, syntax.Perl)
	if err != nil {
		panic("agentleak: key stem " + stem + ": " + err.Error())
	}
	var spell func(re *syntax.Regexp) []string
	spell = func(re *syntax.Regexp) []string {
		switch re.Op {
		case syntax.OpLiteral:
			return []string{strings.ToLower(string(re.Rune))}
		case syntax.OpEmptyMatch, syntax.OpWordBoundary:
			// A \b inside the stem is at its start or its end, where the
			// pattern's own \b stands.
			return []string{""}
		case syntax.OpCapture:
			return spell(re.Sub[0])
		case syntax.OpQuest:
			if re.Flags&syntax.NonGreedy != 0 {
				break
			}
			return append(spell(re.Sub[0]), "")
		case syntax.OpAlternate:
			var out []string
			for _, s := range re.Sub {
				out = append(out, spell(s)...)
			}
			return out
		case syntax.OpCharClass:
			// One byte of the class, whichever the text holds: the
			// order does not matter.
			var out []string
			for k := 0; k < len(re.Rune); k += 2 {
				for r := re.Rune[k]; r <= re.Rune[k+1]; r++ {
					out = append(out, strings.ToLower(string(r)))
				}
			}
			return out
		case syntax.OpConcat:
			out := []string{""}
			for _, s := range re.Sub {
				var next []string
				for _, a := range out {
					for _, b := range spell(s) {
						next = append(next, a+b)
					}
				}
				out = next
			}
			return out
		}
		panic("agentleak: key stem " + stem + ": unexpected " + re.String())
	}
	return &keyMatch{forms: spell(re)}
}

// match is the rule's expression anchored at p: m gets the match and
// group 1.
func (k *keyMatch) match(t string, p int, m []int) int {
	s := p
	if c := byteAt(t, p); c == '"' || c == '\'' {
		s++ // without the quote, the \b at p cannot hold
	}
	if c := byteAt(t, s); c >= 0x80 {
		return -1
	} else if !asciiWord[c] {
		return 0 // no \b before the stem
	}
	for _, f := range k.forms {
		e, ok := foldWordAt(t, s, f)
		if e < 0 {
			return -1
		}
		if !ok {
			continue
		}
		g, end := keyValueAt(t, e)
		if g == -1 {
			return -1
		}
		if g >= 0 {
			m[0], m[1], m[2], m[3] = p, end, g, end
			return 1
		}
	}
	return 0
}

// keyValueAt follows a stem that ends at e: `\b["']?\s*[:=]\s*["']?` and
// the value. It returns where the value begins and ends, -2 when the
// expression fails after this stem, -1 when a byte above 0x7f leaves it to
// the expression.
func keyValueAt(t string, e int) (g, end int) {
	if e < len(t) && asciiWord[t[e]] {
		return -2, 0 // the stem ends in a letter: no \b
	}
	i := e
	if c := byteAt(t, i); c == '"' || c == '\'' {
		i++ // not taking it puts the quote where \s* or [:=] is wanted
	}
	i = keySpacesEnd(t, i)
	if i < 0 {
		return -1, 0
	}
	if c := byteAt(t, i); c != ':' && c != '=' {
		return -2, 0
	}
	c0 := i + 1
	k := keySpacesEnd(t, c0)
	if k < 0 {
		return -1, 0
	}
	// All the spaces, then the quote (taken first) and a value byte.
	if k < len(t) {
		if q := t[k]; q == '"' || q == '\'' {
			if k+1 < len(t) && keyValueByte(t[k+1]) {
				return k + 1, keyValueEnd(t, k+1)
			}
		} else if keyValueByte(q) {
			return k, keyValueEnd(t, k)
		}
	}
	// Fewer spaces: the value begins at the last space the backtracking
	// gives back that is not a newline.
	for g := k - 1; g >= c0; g-- {
		if t[g] != '\n' {
			return g, keyValueEnd(t, g)
		}
	}
	return -2, 0
}

// keySpacesEnd is the end of the run of \s at i, or -1 when a Unicode space
// is among it.
func keySpacesEnd(t string, i int) int {
	for i < len(t) {
		c := t[i]
		if c >= 0x80 {
			r, _ := utf8.DecodeRuneInString(t[i:])
			if r == 0x85 || unicode.In(r, unicode.Z) {
				return -1
			}
			return i
		}
		if !keySpace(c) {
			return i
		}
		i++
	}
	return i
}

// keyValueByte: a byte of the value class [^"'|,}\n] (a byte above 0x7f is
// part of a character other than those).
func keyValueByte(c byte) bool {
	return c != '"' && c != '\'' && c != '|' && c != ',' && c != '}' && c != '\n'
}

// keyValueEnd is where the value that begins at g ends.
func keyValueEnd(t string, g int) int {
	for g < len(t) && keyValueByte(t[g]) {
		g++
	}
	return g
}
