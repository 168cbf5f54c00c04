package risk

import (
	"regexp"
	"strings"
)

var pyBool = regexp.MustCompile(`\b(True|False)\b`)

// pythonish maps the Python spellings a methodology author may use onto
// expr's: True/False, and conditional expressions `a if c else b`, which
// become `(c) ? (a) : (b)`. (**, %, and, or, not and comparisons are shared.)
func pythonish(s string) string {
	return conditional(pyBool.ReplaceAllStringFunc(s, strings.ToLower))
}

// conditional rewrites `a if c else b` at every parenthesis depth. Python
// groups `a if c else b if d else e` as `a if c else (b if d else e)`.
func conditional(s string) string {
	// Rewrite the inside of every parenthesised group first.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			j := skipString(s, i)
			b.WriteString(s[i:j])
			i = j - 1
		case c == '(' || c == '[':
			j := matching(s, i)
			if j < 0 {
				b.WriteString(s[i:])
				i = len(s)
				continue
			}
			b.WriteByte(c)
			for k, part := range splitTopLevel(s[i+1:j], ',') {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(conditional(part))
			}
			b.WriteByte(s[j])
			i = j
		default:
			b.WriteByte(c)
		}
	}
	s = b.String()
	ifAt := topLevelWord(s, "if", 0)
	if ifAt < 0 {
		return s
	}
	elseAt := topLevelWord(s, "else", ifAt+2)
	if elseAt < 0 {
		return s // not a conditional; let the parser report it
	}
	a := strings.TrimSpace(s[:ifAt])
	cond := strings.TrimSpace(s[ifAt+2 : elseAt])
	rest := conditional(strings.TrimSpace(s[elseAt+4:]))
	return "(" + cond + ") ? (" + a + ") : (" + rest + ")"
}

// topLevelWord finds word as a whole word outside brackets and strings,
// from position from on, or returns -1.
func topLevelWord(s, word string, from int) int {
	depth := 0
	for i := from; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			i = skipString(s, i) - 1
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], word) && !identByte(s, i-1) && !identByte(s, i+len(word)):
			return i
		}
	}
	return -1
}

func identByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// skipString returns the index just after the string literal starting at i.
func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] == q {
			return j + 1
		}
	}
	return len(s)
}

// matching returns the index of the bracket closing the one at i, or -1.
func matching(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"', '\'':
			j = skipString(s, j) - 1
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// splitTopLevel splits s at sep outside brackets and strings (the arguments
// of a call, the items of a list).
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			i = skipString(s, i) - 1
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
