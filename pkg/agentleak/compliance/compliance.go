// Package compliance maps what one AgentLeak scan found to the controls of
// privacy and AI frameworks (GDPR, the EU AI Act, NIST AI RMF, the OWASP Top
// 10 for LLM applications, HIPAA, PCI-DSS and others), as the AgentLeak
// engine does: each control is a fixed rule over the leaked findings' data
// types, levels and channels and a few run values (risk index, whether the
// run was blocked, the privacy policy). The result says which controls the
// observed leaks put at risk and joins every control to the findings behind
// it, with an integrity digest over that evidence. It is no certification:
// a control not at risk means only that this trace showed no leak it covers.
//
// Assess answers the cheap question (which controls are at risk, how many)
// without allocating; Evaluate builds the whole section.
package compliance

import (
	"sort"
	"strconv"
)

// Finding is one leaked finding as the mapping sees it.
type Finding struct {
	ID       string // finding_001, ... (detection order, 1-based)
	Channel  string
	DataType string
	Level    int
}

// Violation is one privacy-policy rule that the run broke, with the
// findings that broke it.
type Violation struct {
	Rule       string
	FindingIDs []string
}

// Policy is what the run's privacy policy checked and found.
type Policy struct {
	Enabled    bool
	Assertions []string // the rules the policy declares (assertions checked)
	Violations []Violation
}

// Input is the run as the mapping reads it. Findings holds the leaked
// findings only (baseline channels excluded).
type Input struct {
	RunID        string
	GeneratedAt  string // the report time, as it goes into the digest
	RiskIndex    float64
	PrivacyScore int
	Blocked      bool
	Findings     []Finding
	Policy       Policy
}

// FrameworkSpec is a framework and its controls, in report order.
type FrameworkSpec struct {
	ID, Name, URL string
	Controls      []ControlSpec
}

// ControlSpec is one control: its rule and, for policy-dependent controls,
// the policy assertions one of which it needs to be assessed at all.
type ControlSpec struct {
	ID, Name  string
	Rationale string
	rule      func(context) evidence
	needs     []string
	info      bool
}

// Statuses of a control.
const (
	AtRisk      = "at_risk"
	OK          = "ok"
	NotAssessed = "not_assessed"
	Info        = "info"
)

// context is the run reduced to sets: channels and group member types as
// bits of sorted name lists, levels as bits.
type context struct {
	chans   uint16
	types   uint64
	levels  uint8 // bit l for level l (0-7)
	ri      float64
	blocked bool
	policy  *Policy
}

// evidence is a control's evidence in set form; strings() writes it out.
type evidence struct {
	chans  uint16
	types  uint64
	levels uint8 // L3/L4 tokens (sensitive levels) or the L4 of privacy_enhanced
	ri     bool  // "RI x.xx"
	block  bool
	policy []string
}

func (e evidence) empty() bool {
	return e.chans == 0 && e.types == 0 && e.levels == 0 && !e.ri && !e.block && len(e.policy) == 0
}

// channelNames are the trace channels in ascending order: bit i of a
// channel set is channelNames[i].
var channelNames = []string{"final_output", "generated_file", "inter_agent_message", "log", "shared_memory", "tool_call", "tool_response", "user_input"}

// typeNames are the data types any group holds, in ascending order: bit i
// of a type set is typeNames[i]. Types in no group decide no type rule.
var typeNames = groupMembers()

// FrameworkIndex returns the index of the framework with id in Frameworks, or
// -1.
func FrameworkIndex(id string) int {
	for i := range Frameworks {
		if Frameworks[i].ID == id {
			return i
		}
	}
	return -1
}

// ControlsOf returns the bits of framework i's controls in an
// Assessment's Controls.
func ControlsOf(i int) uint64 {
	first := 0
	for k := 0; k < i; k++ {
		first += len(Frameworks[k].Controls)
	}
	return (1<<uint(len(Frameworks[i].Controls)) - 1) << uint(first)
}

func groupMembers() []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range [][]string{secretTypes, healthTypes, cardholderTypes, educationTypes, childTypes, financialTypes, telecomTypes, insuranceTypes, piiIDTypes, contactTypes} {
		for _, t := range g {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	if len(out) > 64 {
		panic("compliance: more group types than bits")
	}
	return out
}

var (
	chanBit = bitIndex(channelNames)
	typeBit = bitIndex(typeNames)
)

func bitIndex(names []string) map[string]uint {
	m := make(map[string]uint, len(names))
	for i, n := range names {
		m[n] = uint(i)
	}
	return m
}

func chanMask(names []string) uint16 {
	var m uint16
	for _, n := range names {
		m |= 1 << chanBit[n]
	}
	return m
}

func typeMask(names []string) uint64 {
	var m uint64
	for _, n := range names {
		m |= 1 << typeBit[n]
	}
	return m
}

// The rules, one shape each.

func channelsIn(names []string) func(context) evidence {
	m := chanMask(names)
	return func(c context) evidence { return evidence{chans: c.chans & m} }
}

func allChannels(c context) evidence { return evidence{chans: c.chans} }

func typesIn(names []string) func(context) evidence {
	m := typeMask(names)
	return func(c context) evidence { return evidence{types: c.types & m} }
}

func typesInWhenChannels(types, chans []string) func(context) evidence {
	tm, cm := typeMask(types), chanMask(chans)
	return func(c context) evidence {
		if c.chans&cm == 0 {
			return evidence{}
		}
		return evidence{types: c.types & tm}
	}
}

// channelsWhenTypes: the channels (all of them when chans is nil, else
// those listed) once a type of the group leaked.
func channelsWhenTypes(chans, types []string) func(context) evidence {
	cm, tm := ^uint16(0), typeMask(types)
	if chans != nil {
		cm = chanMask(chans)
	}
	return func(c context) evidence {
		if c.types&tm == 0 {
			return evidence{}
		}
		return evidence{chans: c.chans & cm}
	}
}

var (
	healthMask = typeMask(healthTypes)
	piiIDMask  = typeMask(piiIDTypes)
)

func healthWithIdentity(c context) evidence {
	if c.types&healthMask == 0 || c.types&piiIDMask == 0 {
		return evidence{}
	}
	return evidence{types: c.types & (healthMask | piiIDMask)}
}

func sensitiveLevels(c context) evidence { return evidence{levels: c.levels & (1<<3 | 1<<4)} }

func privacyEnhanced(c context) evidence {
	return evidence{ri: c.ri >= 0.4, levels: c.levels & (1 << 4)}
}

func blockedRun(c context) evidence { return evidence{block: c.blocked} }

func nothing(context) evidence { return evidence{} }

func policyRules(rules ...string) func(context) evidence {
	return func(c context) evidence {
		var out []string
		for _, v := range c.policy.Violations {
			for _, r := range rules {
				if v.Rule == r {
					out = append(out, "policy:"+v.Rule)
				}
			}
		}
		return evidence{policy: out}
	}
}

func newContext(in *Input) context {
	c := context{ri: in.RiskIndex, blocked: in.Blocked, policy: &in.Policy}
	for i := range in.Findings {
		f := &in.Findings[i]
		if b, ok := chanBit[f.Channel]; ok {
			c.chans |= 1 << b
		}
		if b, ok := typeBit[f.DataType]; ok {
			c.types |= 1 << b
		}
		if f.Level >= 0 && f.Level < 8 {
			c.levels |= 1 << f.Level
		}
	}
	return c
}

// status decides a control: not assessed without the assertion it needs,
// informational, at risk with evidence, else ok.
func (s *ControlSpec) status(p *Policy, ev evidence) string {
	if len(s.needs) > 0 && !hasAny(p.Assertions, s.needs) {
		return NotAssessed
	}
	if s.info {
		return Info
	}
	if !ev.empty() {
		return AtRisk
	}
	return OK
}

func hasAny(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}

// Assessment is the cheap answer: how many frameworks and controls the run
// puts at risk, without the evidence.
type Assessment struct {
	FrameworksAtRisk    int
	ControlsAtRisk      int
	ControlsNotAssessed int
	// Controls has a bit per control at risk, in report order (framework
	// by framework): a union over runs says which controls any run put at
	// risk.
	Controls     uint64
	atRisk       uint64 // bit per framework
	perFramework [16]uint8
}

// FailedFrameworks returns the ids of the frameworks at risk, most controls
// at risk first, ties in report order (the posture's order).
func (a Assessment) FailedFrameworks() []string {
	var buf [16]int
	idx := a.AppendFailed(buf[:0])
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = Frameworks[i].ID
	}
	return out
}

// AppendFailed appends to dst the indexes in Frameworks of the frameworks
// at risk, in the posture's order; with a stack buffer it allocates
// nothing (the summary of every scanned trace lists them).
func (a Assessment) AppendFailed(dst []int) []int {
	top := uint8(0)
	for i := range Frameworks {
		top = max(top, a.perFramework[i])
	}
	for n := top; n > 0; n-- {
		for i := range Frameworks {
			if a.perFramework[i] == n {
				dst = append(dst, i)
			}
		}
	}
	return dst
}

// ControlsAtRiskIn is the number of framework i's controls at risk.
func (a Assessment) ControlsAtRiskIn(i int) int { return int(a.perFramework[i]) }

// FrameworkAtRisk reports whether framework i of Frameworks is at risk.
func (a Assessment) FrameworkAtRisk(i int) bool { return a.atRisk&(1<<uint(i)) != 0 }

// Clear is the number of frameworks with no control at risk.
func (a Assessment) Clear() int { return len(Frameworks) - a.FrameworksAtRisk }

// Assess decides every control of the run without building the evidence.
func Assess(in *Input) Assessment {
	c := newContext(in)
	var a Assessment
	bit := 0
	for i := range Frameworks {
		f := &Frameworks[i]
		n := 0
		for j := range f.Controls {
			s := &f.Controls[j]
			switch s.status(&in.Policy, s.rule(c)) {
			case AtRisk:
				n++
				a.Controls |= 1 << uint(bit)
			case NotAssessed:
				a.ControlsNotAssessed++
			}
			bit++
		}
		if n > 0 {
			a.FrameworksAtRisk++
			a.atRisk |= 1 << uint(i)
			a.perFramework[i] = uint8(n)
		}
		a.ControlsAtRisk += n
	}
	return a
}

// strings writes an evidence set out as the engine's tokens: channels and
// types in ascending order, L3/L4 ascending, the RI with two decimals,
// "blocked", the policy rules in violation order.
func (e evidence) strings(ri float64) []string {
	out := []string{}
	if e.ri {
		out = append(out, "RI "+strconv.FormatFloat(ri, 'f', 2, 64))
	}
	for i, n := range channelNames {
		if e.chans&(1<<uint(i)) != 0 {
			out = append(out, n)
		}
	}
	for i, n := range typeNames {
		if e.types&(1<<uint(i)) != 0 {
			out = append(out, n)
		}
	}
	for l := 0; l < 8; l++ {
		if e.levels&(1<<uint(l)) != 0 {
			out = append(out, "L"+strconv.Itoa(l))
		}
	}
	if e.block {
		out = append(out, "blocked")
	}
	return append(out, e.policy...)
}
