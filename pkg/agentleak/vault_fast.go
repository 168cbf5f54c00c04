package agentleak

import (
	"bytes"
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
// Keys and canaries are double-quoted without escapes; every vault has at
// least one canary tier of obvious, realistic or semantic. Anything else
// (records, allowed fields, comments, other quoting or layout) returns false
// and the caller uses the YAML parser, so the result is always what the
// parser and the schema would give.
func fastVaults(data []byte) (rawVaults, bool) {
	var out rawVaults
	if !bytes.HasPrefix(data, []byte("vaults:\n")) || bytes.IndexByte(data, '\r') >= 0 || bytes.IndexByte(data, '\\') >= 0 ||
		bytes.IndexByte(data, '#') >= 0 || bytes.IndexByte(data, '\t') >= 0 || !utf8.Valid(data) {
		return out, false
	}
	lines := strings.Split(string(data[len("vaults:\n"):]), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var cur *rawVault
	inCanaries := false
	for _, l := range lines {
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
			cur.Canaries = map[string][]string{}
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

// quoted reads a whole double-quoted scalar with no escapes.
func quoted(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || strings.IndexByte(s[1:len(s)-1], '"') >= 0 {
		return "", false
	}
	return s[1 : len(s)-1], true
}

// quotedList reads `["a", "b"]` (at least one item; items may hold commas).
func quotedList(s string) ([]string, bool) {
	if len(s) < 4 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	var items []string
	rest := s[1 : len(s)-1]
	for {
		if len(rest) < 2 || rest[0] != '"' {
			return nil, false
		}
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return nil, false
		}
		items = append(items, rest[1:1+end])
		rest = rest[end+2:]
		if rest == "" {
			return items, true
		}
		if !strings.HasPrefix(rest, ", ") {
			return nil, false
		}
		rest = rest[2:]
	}
}
