package agentleak

// The built-in detectors are the engine's rules in detect_rules.go; this
// file holds the pattern set a config enables and the byte helpers.

// patternSet is the built-in detectors enabled by a config.
type patternSet struct {
	*ruleEngine
	fam   map[string]bool
	on    []bool     // per engine rule: its family is enabled
	state *ruleState // per-event scratch of the rules
}

func newPatternSet(enabled map[string]bool) *patternSet {
	e := builtin()
	on := make([]bool, len(e.rules))
	for i := range e.rules {
		on[i] = enabled[e.rules[i].family]
	}
	return &patternSet{ruleEngine: e, fam: enabled, on: on, state: newRuleState(len(e.rules))}
}

// hit is one automaton match: pattern id and span.
type hit struct{ id, s, e int32 }

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
