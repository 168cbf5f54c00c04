package compliance

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Report is a run's whole compliance section, keys in the engine's order.
type Report struct {
	Frameworks     []Framework   `json:"frameworks"`
	Summary        Summary       `json:"summary"`
	Posture        Posture       `json:"posture"`
	Assurance      Assurance     `json:"assurance"`
	EvidenceMatrix []MatrixEntry `json:"evidence_matrix"`
	Integrity      Integrity     `json:"integrity"`
	Disclaimer     Disclaimer    `json:"disclaimer"`
}

// Framework is one framework's result.
type Framework struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	Status      string    `json:"status"` // compliant or non_compliant
	AtRisk      int       `json:"at_risk"`
	NotAssessed int       `json:"not_assessed"`
	Controls    []Control `json:"controls"`
}

// Control is one control's result and the evidence behind it.
type Control struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	Status          string   `json:"status"`
	Rationale       string   `json:"rationale"`
	Evidence        []string `json:"evidence"`
	EvidenceDetails Details  `json:"evidence_details"`
	AssessmentBasis string   `json:"assessment_basis"`
}

// Details joins a control's evidence to the findings: never their values.
type Details struct {
	FindingIDs  []string `json:"finding_ids"`
	Channels    []string `json:"channels"`
	DataTypes   []string `json:"data_types"`
	Levels      []int    `json:"levels"`
	PolicyRules []string `json:"policy_rules"`
}

// Summary counts frameworks and controls.
type Summary struct {
	Total               int `json:"total"`
	Compliant           int `json:"compliant"`
	NonCompliant        int `json:"non_compliant"`
	ControlsAtRisk      int `json:"controls_at_risk"`
	ControlsNotAssessed int `json:"controls_not_assessed"`
}

// Posture lists the frameworks at risk, most controls at risk first.
type Posture struct {
	Status           string            `json:"status"`
	FailedFrameworks []string          `json:"failed_frameworks"`
	Failed           []FailedFramework `json:"failed"`
}

// FailedFramework is a framework with controls at risk.
type FailedFramework struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	AtRisk int    `json:"at_risk"`
}

// Assurance says what the assessment rests on.
type Assurance struct {
	Status              string   `json:"status"`         // controls_at_risk or observed_clear
	EvidenceGrade       string   `json:"evidence_grade"` // trace_and_policy or trace_only
	ControlsNotAssessed int      `json:"controls_not_assessed"`
	PolicyAssertions    []string `json:"policy_assertions"`
}

// MatrixEntry is one leaked finding and the frameworks and controls whose
// evidence it is.
type MatrixEntry struct {
	FindingID  string   `json:"finding_id"`
	Frameworks []string `json:"frameworks"`
	Controls   []string `json:"controls"`
}

// Integrity is a SHA-256 digest over the run id, the report time, the risk
// index, the privacy score and the evidence matrix: a check that the
// evidence was not altered, not a signature.
type Integrity struct {
	Algorithm       string   `json:"algorithm"`
	Digest          string   `json:"digest"`
	CanonicalFields []string `json:"canonical_fields"`
	Signed          bool     `json:"signed"`
	Note            string   `json:"note"`
}

// Disclaimer is the same on every run: this is an observation, not a
// certification.
type Disclaimer struct {
	Text                    string `json:"text"`
	IsLegalCertification    bool   `json:"is_legal_certification"`
	IsComplianceAttestation bool   `json:"is_compliance_attestation"`
	Scope                   string `json:"scope"`
}

// TheDisclaimer is every report's disclaimer.
var TheDisclaimer = Disclaimer{
	Text:                    "lf maps the leaks it observed in this one trace to framework controls. That is evidence for a review, not a legal certification or an attestation of compliance: a control that is not at risk only means this trace showed no leak it covers.",
	IsLegalCertification:    false,
	IsComplianceAttestation: false,
	Scope:                   "single-run, detector-observed findings only",
}

const integrityNote = "SHA-256 over the canonical JSON of run_id, generated_at, risk_index, privacy_score and evidence_matrix (sorted keys, no spaces, non-ASCII escaped): recompute it to check the evidence; it is not a signature."

var canonicalFields = []string{"evidence_matrix", "generated_at", "privacy_score", "risk_index", "run_id"}

// Evaluate builds the whole compliance section of a run.
func Evaluate(in *Input) *Report {
	c := newContext(in)
	r := &Report{Frameworks: make([]Framework, len(Frameworks))}
	perFinding := map[string]*MatrixEntry{}
	for _, f := range in.Findings {
		if perFinding[f.ID] == nil {
			perFinding[f.ID] = &MatrixEntry{FindingID: f.ID, Frameworks: []string{}, Controls: []string{}}
		}
	}
	for i := range Frameworks {
		spec := &Frameworks[i]
		fw := Framework{ID: spec.ID, Name: spec.Name, URL: spec.URL, Controls: make([]Control, len(spec.Controls))}
		for j := range spec.Controls {
			cs := &spec.Controls[j]
			ev := cs.rule(c)
			ctl := Control{ID: cs.ID, Name: cs.Name, Rationale: cs.Rationale, Status: cs.status(&in.Policy, ev), Evidence: ev.strings(in.RiskIndex), AssessmentBasis: "trace_observation"}
			if len(cs.needs) > 0 {
				ctl.AssessmentBasis = "trace_and_policy"
			}
			ctl.EvidenceDetails = details(in, ctl.Evidence)
			for _, id := range ctl.EvidenceDetails.FindingIDs {
				if e := perFinding[id]; e != nil {
					e.Controls = append(e.Controls, cs.ID)
					if n := len(e.Frameworks); n == 0 || e.Frameworks[n-1] != spec.ID {
						e.Frameworks = append(e.Frameworks, spec.ID)
					}
				}
			}
			switch ctl.Status {
			case AtRisk:
				fw.AtRisk++
			case NotAssessed:
				fw.NotAssessed++
			}
			fw.Controls[j] = ctl
		}
		fw.Status = "compliant"
		if fw.AtRisk > 0 {
			fw.Status = "non_compliant"
		}
		r.Frameworks[i] = fw
	}
	r.summarise(in)
	r.EvidenceMatrix = make([]MatrixEntry, 0, len(perFinding))
	for _, e := range perFinding {
		sort.Strings(e.Frameworks)
		sort.Strings(e.Controls)
		r.EvidenceMatrix = append(r.EvidenceMatrix, *e)
	}
	sort.Slice(r.EvidenceMatrix, func(i, j int) bool { return r.EvidenceMatrix[i].FindingID < r.EvidenceMatrix[j].FindingID })
	r.Integrity = Integrity{Algorithm: "sha256", Digest: Digest(in, r.EvidenceMatrix), CanonicalFields: canonicalFields, Signed: false, Note: integrityNote}
	r.Disclaimer = TheDisclaimer
	return r
}

func (r *Report) summarise(in *Input) {
	r.Summary.Total = len(r.Frameworks)
	r.Posture = Posture{Status: "compliant", FailedFrameworks: []string{}, Failed: []FailedFramework{}}
	for _, fw := range r.Frameworks {
		if fw.AtRisk > 0 {
			r.Summary.NonCompliant++
			r.Posture.Failed = append(r.Posture.Failed, FailedFramework{ID: fw.ID, Name: fw.Name, AtRisk: fw.AtRisk})
		} else {
			r.Summary.Compliant++
		}
		r.Summary.ControlsAtRisk += fw.AtRisk
		r.Summary.ControlsNotAssessed += fw.NotAssessed
	}
	sort.SliceStable(r.Posture.Failed, func(i, j int) bool { return r.Posture.Failed[i].AtRisk > r.Posture.Failed[j].AtRisk })
	for _, f := range r.Posture.Failed {
		r.Posture.FailedFrameworks = append(r.Posture.FailedFrameworks, f.ID)
	}
	if len(r.Posture.Failed) > 0 {
		r.Posture.Status = "non_compliant"
	}
	r.Assurance = Assurance{Status: "observed_clear", EvidenceGrade: "trace_only", ControlsNotAssessed: r.Summary.ControlsNotAssessed, PolicyAssertions: append([]string{}, in.Policy.Assertions...)}
	sort.Strings(r.Assurance.PolicyAssertions)
	if r.Summary.ControlsAtRisk > 0 {
		r.Assurance.Status = "controls_at_risk"
	}
	if in.Policy.Enabled {
		r.Assurance.EvidenceGrade = "trace_and_policy"
	}
}

// details maps a control's evidence tokens back to the leaked findings: a
// finding is matched by its channel, its data type or "L<level>" among the
// tokens, or by a policy violation the tokens name.
func details(in *Input, tokens []string) Details {
	d := Details{FindingIDs: []string{}, Channels: []string{}, DataTypes: []string{}, Levels: []int{}, PolicyRules: []string{}}
	if len(tokens) == 0 {
		return d
	}
	tok := make(map[string]bool, len(tokens))
	ids := map[string]bool{}
	for _, t := range tokens {
		tok[t] = true
		if rule, ok := strings.CutPrefix(t, "policy:"); ok && !contains(d.PolicyRules, rule) {
			d.PolicyRules = append(d.PolicyRules, rule)
		}
	}
	for _, v := range in.Policy.Violations {
		if contains(d.PolicyRules, v.Rule) {
			for _, id := range v.FindingIDs {
				ids[id] = true
			}
		}
	}
	chans, types, levels := map[string]bool{}, map[string]bool{}, map[int]bool{}
	for _, f := range in.Findings {
		if tok[f.Channel] || tok[f.DataType] || tok["L"+strconv.Itoa(f.Level)] || ids[f.ID] {
			ids[f.ID] = true
			chans[f.Channel] = true
			types[f.DataType] = true
			levels[f.Level] = true
		}
	}
	d.FindingIDs = sortedKeys(ids)
	d.Channels = sortedKeys(chans)
	d.DataTypes = sortedKeys(types)
	for l := range levels {
		d.Levels = append(d.Levels, l)
	}
	sort.Ints(d.Levels)
	sort.Strings(d.PolicyRules)
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Digest is the hex SHA-256 of the canonical JSON of the run's five
// canonical fields: keys sorted, no white space, non-ASCII as \u escapes,
// floats as Python writes them (a whole number keeps its ".0"), so that
// the engine's digest and lf's agree byte for byte.
func Digest(in *Input, matrix []MatrixEntry) string {
	var b []byte
	b = append(b, `{"evidence_matrix":[`...)
	for i, e := range matrix {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"controls":`...)
		b = appendStrings(b, e.Controls)
		b = append(b, `,"finding_id":`...)
		b = appendString(b, e.FindingID)
		b = append(b, `,"frameworks":`...)
		b = appendStrings(b, e.Frameworks)
		b = append(b, '}')
	}
	b = append(b, `],"generated_at":`...)
	b = appendString(b, in.GeneratedAt)
	b = append(b, `,"privacy_score":`...)
	b = strconv.AppendInt(b, int64(in.PrivacyScore), 10)
	b = append(b, `,"risk_index":`...)
	b = appendPyFloat(b, in.RiskIndex)
	b = append(b, `,"run_id":`...)
	b = appendString(b, in.RunID)
	b = append(b, '}')
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString writes s as a JSON string with every character outside
// ASCII escaped (surrogate pairs above U+FFFF), as Python's json.dumps does
// by default.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	u := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = u(b, rune(c))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r > 0xffff {
			r -= 0x10000
			b = u(b, 0xd800+(r>>10))
			b = u(b, 0xdc00+(r&0x3ff))
		} else {
			b = u(b, r)
		}
		i += w
	}
	return append(b, '"')
}

// appendPyFloat writes f as Python's repr does: the shortest digits that
// read back, a whole number with ".0", exponents from 1e16 and below 1e-4.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-4 || a >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64) // 1e-05, 1.5e+16
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		if len(exp) < 2 {
			exp = strings.Repeat("0", 2-len(exp)) + exp
		}
		return append(b, mant+"e"+string(sign)+exp...)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return append(b, s...)
}
