package agentleak

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastVaults reads the common vault file shape without a YAML parser:
//
//	vaults:
//	  - key: "scenario"
//	    canaries:
//	      obvious: ["CANARY_...", "..."]
//	      realistic: ["..."]
//
// Keys and canaries are double-quoted on one line, with the escapes JSON
// also has (\" \\ \/ \n \t \r \uXXXX outside the surrogates); every vault
// has at least one canary tier of obvious, realistic or semantic. Anything else
// (records, allowed fields, comments, other quoting or layout) returns false
// and the caller uses the YAML parser, so the result is always what the
// parser and the schema would give.
func fastVaults(data []byte) (rawVaults, bool) {
	var out rawVaults
	if !bytes.HasPrefix(data, []byte("vaults:\n")) || bytes.IndexByte(data, '#') >= 0 || !plainText(data) || !utf8.Valid(data) {
		return out, false
	}
	rest := string(data[len("vaults:\n"):])
	out.Vaults = make([]rawVault, 0, strings.Count(rest, "\n  - key: ")+1)
	var cur *rawVault
	inCanaries := false
	for rest != "" {
		l, r, _ := strings.Cut(rest, "\n")
		rest = r
		switch {
		case strings.HasPrefix(l, "  - key: "):
			if cur != nil && len(cur.Canaries) == 0 {
				return out, false
			}
			k, ok := quoted(l[len("  - key: "):])
			if !ok || k == "" {
				return out, false
			}
			out.Vaults = append(out.Vaults, rawVault{Key: k})
			cur = &out.Vaults[len(out.Vaults)-1]
			inCanaries = false
		case l == "    canaries:" && cur != nil && cur.Canaries == nil:
			cur.Canaries = make(map[string][]string, 1)
			inCanaries = true
		case inCanaries && strings.HasPrefix(l, "      "):
			tier, list, ok := strings.Cut(l[6:], ": ")
			if !ok || (tier != "obvious" && tier != "realistic" && tier != "semantic") || cur.Canaries[tier] != nil {
				return out, false
			}
			items, ok := quotedList(list)
			if !ok {
				return out, false
			}
			cur.Canaries[tier] = items
		default:
			return out, false
		}
	}
	if cur == nil || len(cur.Canaries) == 0 {
		return out, false
	}
	return out, true
}

// plainText: no control character but line feeds, no DEL.
func plainText(data []byte) bool {
	for _, c := range data {
		if c < 0x20 && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

// quotedPrefix reads a double-quoted scalar at the start of s and returns
// its value and the rest of s after the closing quote.
func quotedPrefix(s string) (val, rest string, ok bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	i := 1
	for i < len(s) && s[i] != '"' && s[i] != '\\' {
		i++
	}
	if i < len(s) && s[i] == '"' {
		return s[1:i], s[i+1:], true
	}
	b := []byte(s[1:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return string(b), s[i+1:], true
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", "", false
		}
		switch s[i+1] {
		case '"', '\\', '/':
			b = append(b, s[i+1])
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'u':
			if i+6 > len(s) {
				return "", "", false
			}
			r, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
			if err != nil || r >= 0xd800 && r < 0xe000 || r < 0x20 {
				return "", "", false
			}
			b = utf8.AppendRune(b, rune(r))
			i += 6
			continue
		default:
			return "", "", false
		}
		i += 2
	}
	return "", "", false
}

// quoted reads a whole double-quoted scalar.
func quoted(s string) (string, bool) {
	v, rest, ok := quotedPrefix(s)
	return v, ok && rest == ""
}

// quotedList reads `["a", "b"]` (at least one item; items may hold commas).
func quotedList(s string) ([]string, bool) {
	if len(s) < 4 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	var items []string
	rest := s[1 : len(s)-1]
	for {
		v, r, ok := quotedPrefix(rest)
		if !ok {
			return nil, false
		}
		items = append(items, v)
		rest = r
		if rest == "" {
			return items, true
		}
		if !strings.HasPrefix(rest, ", ") {
			return nil, false
		}
		rest = rest[2:]
	}
}
