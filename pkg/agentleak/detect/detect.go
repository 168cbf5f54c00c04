package detect

// The built-in detectors are the engine's rules in detect_rules.go; this
// file holds the pattern set a config enables and the byte helpers.

// PatternSet is the built-in detectors enabled by a config.
type PatternSet struct {
	*ruleEngine
	fam    map[string]bool
	on     []bool       // per engine rule: its family is enabled
	src    []int8       // per engine rule: where its starts come from (srcOff, srcTriggers or a start class)
	trigOn [][]trigRule // per trigger word id: its enabled rules (addTrigger)
	state  *ruleState   // per-event scratch of the rules
}

// NewPatternSet is the built-in detectors of the enabled families.
func NewPatternSet(enabled map[string]bool) *PatternSet {
	e := builtin()
	on := make([]bool, len(e.rules))
	src := make([]int8, len(e.rules))
	for i := range e.rules {
		r := &e.rules[i]
		on[i] = enabled[r.family]
		switch {
		case !on[i]:
			src[i] = srcOff
		case len(r.triggers) > 0:
			src[i] = srcTriggers
		default:
			src[i] = int8(r.starts)
		}
	}
	return &PatternSet{ruleEngine: e, fam: enabled, on: on, src: src, trigOn: trigOn(e, on), state: newRuleState(len(e.rules))}
}

// Sources of a rule's starts besides its start class (PatternSet.src).
const (
	srcOff      int8 = -1 // the rule's family is off
	srcTriggers int8 = -2 // its trigger words
)

// Hit is one automaton match: pattern id and span.
type Hit struct{ ID, S, E int32 }

// EmitFunc receives one detection: what the rule reports (resolved when
// the rules are built) and the matched text.
type EmitFunc func(info *ReportInfo, value string)

// ReportInfo is what a rule's findings carry besides their value: the data
// type, its level, severity and confidence (the detector's, or the data
// type's level for keyname rules: keyInfo), and the detector's name. It is
// resolved once per rule instead of by two map lookups per finding.
type ReportInfo struct {
	DT       string
	Level    int
	Severity string
	Conf     float64
	Detector string
}

func isWordByte(c byte) bool {
	return c == '_' || c-'0' < 10 || (c|0x20)-'a' < 26 || c >= 0x80
}
func isDigit(c byte) bool      { return c-'0' < 10 }
func isUpper(c byte) bool      { return c-'A' < 26 }
func isLower(c byte) bool      { return c-'a' < 26 }
func isAlnumUpper(c byte) bool { return isDigit(c) || isUpper(c) }

func leftBound(t string, s int) bool  { return s == 0 || !isWordByte(t[s-1]) }
func rightBound(t string, e int) bool { return e >= len(t) || !isWordByte(t[e]) }

// Clone is p with its own per-event scratch (the rules' state), sharing
// the compiled rules (read-only) with p.
func (p *PatternSet) Clone() *PatternSet {
	c := *p
	c.state = newRuleState(len(c.rules))
	return &c
}
