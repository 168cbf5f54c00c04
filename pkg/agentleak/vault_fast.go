package agentleak

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
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
	idx, ok := indexVaults(data)
	if !ok {
		return rawVaults{}, false
	}
	out := rawVaults{Vaults: make([]rawVault, len(idx))}
	for i, vl := range idx {
		rv := &out.Vaults[i]
		rv.Key, rv.Canaries = vl.key, map[string][]string{}
		for t, items := range canaryLines(vl.lines) {
			if items != nil {
				rv.Canaries[canaryTiers[t].name] = items
			}
		}
	}
	return out, true
}

// vaultLines is one vault of the common shape: its key, and its canary
// tier lines, checked but not yet read.
type vaultLines struct {
	key   string
	lines string
}

// indexVaults checks that data has the common shape (see fastVaults) and
// returns its vaults with their canary lines unread: a vault file may hold
// thousands of vaults that the traces at hand never use, so a vault's
// canaries are read when a trace first uses it (Vault.prepare).
func indexVaults(data []byte) ([]vaultLines, bool) {
	if !bytes.HasPrefix(data, []byte("vaults:\n")) || bytes.IndexByte(data, '#') >= 0 || !plainText(data) || !utf8.Valid(data) {
		return nil, false
	}
	// The vaults refer to data's bytes (the caller hands them over):
	// copying 500 KB into a string was a visible share of a small scan.
	body := data[len("vaults:\n"):]
	s := unsafe.String(unsafe.SliceData(body), len(body))
	out := make([]vaultLines, 0, strings.Count(s, "\n  - key: ")+1)
	var (
		cur        *vaultLines
		inCanaries bool
		tiers      uint8 // the tiers seen in the current vault
		first      int   // where the current vault's tier lines begin
		items      []string
	)
	for pos := 0; pos < len(s); {
		end, next := lineAt(s, pos)
		l := s[pos:end]
		switch {
		case strings.HasPrefix(l, "  - key: "):
			if cur != nil && tiers == 0 {
				return nil, false
			}
			k, ok := quoted(l[len("  - key: "):])
			if !ok || k == "" {
				return nil, false
			}
			out = append(out, vaultLines{key: k})
			cur, inCanaries, tiers = &out[len(out)-1], false, 0
		case l == "    canaries:" && cur != nil && !inCanaries:
			inCanaries, first = true, next
		case inCanaries && strings.HasPrefix(l, "      "):
			tier, list, ok := strings.Cut(l[6:], ": ")
			t := tierIndex(tier)
			if !ok || t < 0 || tiers&(1<<t) != 0 {
				return nil, false
			}
			if items, ok = quotedList(list, items[:0]); !ok {
				return nil, false
			}
			tiers |= 1 << t
			cur.lines = s[first:end]
		default:
			return nil, false
		}
		pos = next
	}
	if cur == nil || tiers == 0 {
		return nil, false
	}
	return out, true
}

// lineAt returns the end of the line that starts at pos and where the next
// one starts.
func lineAt(s string, pos int) (end, next int) {
	if k := strings.IndexByte(s[pos:], '\n'); k >= 0 {
		return pos + k, pos + k + 1
	}
	return len(s), len(s)
}

// tierIndex is the index of a canary tier in canaryTiers, or -1.
func tierIndex(name string) int {
	for i := range canaryTiers {
		if canaryTiers[i].name == name {
			return i
		}
	}
	return -1
}

// canaryLines reads the tier lines indexVaults checked: the items of each
// tier, in canaryTiers order (nil for an absent tier).
func canaryLines(lines string) (out [len(canaryTiers)][]string) {
	for lines != "" {
		l, rest, _ := strings.Cut(lines, "\n")
		lines = rest
		tier, list, _ := strings.Cut(l[6:], ": ")
		out[tierIndex(tier)], _ = quotedList(list, nil)
	}
	return out
}

// plainText: no control character but line feeds, no DEL. Eight bytes at
// a time are passed when none is below 0x20 or DEL (exact bit tests, as in
// jsonlex.SpecialMask); a word with one is checked byte by byte.
func plainText(data []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		del := w ^ (ones * 0x7f)
		if ((w-ones*0x20)&^w|(del-ones)&^del)&highs == 0 {
			continue
		}
		for _, c := range data[i : i+8] {
			if c < 0x20 && c != '\n' || c == 0x7f {
				return false
			}
		}
	}
	for _, c := range data[i:] {
		if c < 0x20 && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

// quotedPrefix reads a double-quoted scalar at the start of s and returns
// its value and the rest of s after the closing quote. It is YAML's scalar
// (no \u surrogates or control characters), not a JSON string: not
// jsonlex's.
func quotedPrefix(s string) (val, rest string, ok bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	i := len(s)
	if q := strings.IndexByte(s[1:], '"'); q >= 0 {
		i = q + 1
	}
	if b := strings.IndexByte(s[1:i], '\\'); b >= 0 {
		i = b + 1
	} else if i < len(s) {
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

// quotedList appends to items the items of `["a", "b"]` (at least one;
// items may hold commas).
func quotedList(s string, items []string) ([]string, bool) {
	if len(s) < 4 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
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
