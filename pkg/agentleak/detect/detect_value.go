package detect

import "strings"

// trivial is trivialValue's expression on ASCII values, which a key-name
// match's value is nearly always: the placeholders (none, null, n/a...),
// runs of ?, -, x or *, <...>, and templates ({{..., ${...; a value with a
// byte above 0x7f is left to the expression (under (?i) the Kelvin sign
// is a k of unknown and the long s an s of false). detect_value_test.go
// holds it to the expression.
func trivial(v string) bool {
	var low [8]byte
	if len(v) <= len(low) {
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c >= 0x80 {
				return trivialValue.get().MatchString(v)
			}
			if isUpper(c) {
				c |= 0x20
			}
			low[i] = c
		}
		switch string(low[:len(v)]) {
		case "none", "null", "n/a", "na", "true", "false", "redacted", "unknown":
			return true
		}
	}
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return trivialValue.get().MatchString(v)
		}
	}
	if v == "" {
		return false
	}
	switch c := v[0]; c {
	case '?', '-':
		return sameBytes(v, c, c)
	case 'x', 'X':
		return len(v) >= 3 && sameBytes(v, 'x', 'X')
	case '*':
		return len(v) >= 2 && sameBytes(v, '*', '*')
	case '<':
		return len(v) >= 2 && v[len(v)-1] == '>' && strings.IndexByte(v[1:len(v)-1], '>') < 0
	case '{':
		// \{\{.*: the dot takes any character but a newline.
		return strings.HasPrefix(v, "{{") && strings.IndexByte(v, '\n') < 0
	case '$':
		return strings.HasPrefix(v, "${") && strings.IndexByte(v, '\n') < 0
	}
	return false
}

// sameBytes: every byte of v is a or b.
func sameBytes(v string, a, b byte) bool {
	for i := 0; i < len(v); i++ {
		if v[i] != a && v[i] != b {
			return false
		}
	}
	return true
}
