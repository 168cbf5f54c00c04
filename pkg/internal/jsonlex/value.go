package jsonlex

// MaxDepth is the deepest nesting SkipValue follows; a deeper value makes
// it give up (a negative result), and the caller's fall-back decides.
const MaxDepth = 512

// SkipValue returns the index after the JSON value at b[i], checking its
// syntax (strings, escapes, numbers and literals too; not UTF-8), or a
// negative result: a syntax error at byte ^r, or a value nested deeper
// than MaxDepth. What follows the value is the caller's to check.
func SkipValue(b []byte, i int) int {
	return skipValue(b, i, 0)
}

func skipValue(b []byte, i, depth int) int {
	if depth > MaxDepth || i >= len(b) {
		return ^i
	}
	switch c := b[i]; {
	case c == '"':
		e, _ := StringEnd(b, i+1, 0)
		if e < 0 {
			return e
		}
		return e + 1
	case c == '{':
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return ^i
			}
			e, _ := StringEnd(b, i+1, 0)
			if e < 0 {
				return e
			}
			i = SkipSpace(b, e+1)
			if i >= len(b) || b[i] != ':' {
				return ^i
			}
			if i = skipValue(b, SkipSpace(b, i+1), depth+1); i < 0 {
				return i
			}
			i = SkipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = SkipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return i + 1
			}
			return ^i
		}
	case c == '[':
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = skipValue(b, i, depth+1); i < 0 {
				return i
			}
			i = SkipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = SkipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return i + 1
			}
			return ^i
		}
	case c == '-' || IsDigit(c):
		return NumberEnd(b, i)
	}
	return LitEnd(b, i)
}

// NumberEnd moves past the JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. What follows it is the
// caller's to check (a digit after a leading 0 is then an error).
func NumberEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) || !IsDigit(b[i]) {
		return ^i
	}
	if b[i] == '0' {
		i++
	} else {
		i = digitsEnd(b, i)
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !IsDigit(b[i+1]) {
			return ^(i + 1)
		}
		i = digitsEnd(b, i+1)
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !IsDigit(b[i]) {
			return ^i
		}
		i = digitsEnd(b, i)
	}
	return i
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && IsDigit(b[i]) {
		i++
	}
	return i
}

// SkimValue returns the index after the value at b[i] checking only its
// structure (brackets and where strings end), not what its strings and
// scalars hold, or a negative result. A scalar runs to the next white
// space, ',', ']' or '}'. It is for a walker whose decoded values
// encoding/json checks and that passes over large texts it never reads.
func SkimValue(b []byte, i int) int {
	if i >= len(b) {
		return ^i
	}
	switch b[i] {
	case '"':
		return QuoteEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = QuoteEnd(b, i); i < 0 {
					return i
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return ^i
	default:
		j := i
		for j < len(b) && !IsSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		if j == i {
			return ^i
		}
		return j
	}
}
