package agentleak

import "unsafe"

// The built-in detectors are the engine's rules in detect_rules.go; this
// file holds the pattern set a config enables and the byte helpers.

// patternSet is the built-in detectors enabled by a config.
type patternSet struct {
	fam   map[string]bool
	on    []bool     // per engine rule: its family is enabled
	words []string   // patterns the scanner's combined automaton puts before a vault's values (none)
	state *ruleState // per-event scratch of the rules
}

func newPatternSet(enabled map[string]bool) *patternSet {
	on := make([]bool, len(engineRules))
	for i := range engineRules {
		on[i] = enabled[engineRules[i].family]
	}
	return &patternSet{fam: enabled, on: on, state: newRuleState()}
}

// hit is one automaton match: pattern id and span.
type hit struct{ id, s, e int32 }

// scanWithHits is scan with the keyword matches already found (by an
// automaton that also holds a vault's values).
func (ps *patternSet) scanWithHits(text string, emit emitFunc, hits []hit) {
	ps.state.lower = lowerASCII(ps.state.lower, text)
	ps.runRules(text, unsafe.String(unsafe.SliceData(ps.state.lower), len(ps.state.lower)), emit)
}

// emitFunc receives one detection: the data type reported, the key into
// builtinTypes (or "" for keyname findings, which carry their own level),
// the family and the matched text.
type emitFunc func(dt, typeKey, family, value string)

func isWordByte(c byte) bool {
	return c == '_' || c-'0' < 10 || (c|0x20)-'a' < 26 || c >= 0x80
}
func isDigit(c byte) bool      { return c-'0' < 10 }
func isUpper(c byte) bool      { return c-'A' < 26 }
func isLower(c byte) bool      { return c-'a' < 26 }
func isAlnumUpper(c byte) bool { return isDigit(c) || isUpper(c) }

func leftBound(t string, s int) bool  { return s == 0 || !isWordByte(t[s-1]) }
func rightBound(t string, e int) bool { return e >= len(t) || !isWordByte(t[e]) }

// scan runs every enabled built-in detector over text; lower is text with
// ASCII letters lowercased.
func (ps *patternSet) scan(text string, lower []byte, emit emitFunc) {
	ps.runRules(text, unsafe.String(unsafe.SliceData(lower), len(lower)), emit)
}
