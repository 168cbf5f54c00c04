package agentleak

import (
	"context"
	"encoding/json"
	"math/bits"
	"strconv"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/model"
)

// FindingID is the id the engine gives a finding: its place in detection
// order, 1-based, at least three digits (finding_001, finding_1000).
func FindingID(f *Finding) string {
	n := strconv.Itoa(f.Seq + 1)
	for len(n) < 3 {
		n = "0" + n
	}
	return "finding_" + n
}

// ComplianceInput is what the compliance mapping reads of a result: its
// leaked findings with their ids, the run values and what the privacy
// policy of cfg (nil: the defaults, no policy) checked and found.
// generatedAt is the report time that goes into the integrity digest.
func (r *Result) ComplianceInput(cfg *Config, generatedAt string) compliance.Input {
	in := compliance.Input{RunID: r.RunID, GeneratedAt: generatedAt, RiskIndex: r.RiskIndex, PrivacyScore: r.PrivacyScore, Blocked: r.Blocked}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Leaked {
			in.Findings = append(in.Findings, compliance.Finding{ID: FindingID(f), Channel: f.Channel, DataType: f.DataType, Level: f.Level})
		}
	}
	if cfg != nil {
		in.Policy = policyFindings(&cfg.Policy, r)
	}
	return in
}

// policyFindings names the privacy policy's assertions and, for each one
// the run broke, the leaked findings that broke it (none for the run-level
// limits on risk index and finding count).
func policyFindings(p *Policy, r *Result) compliance.Policy {
	var out compliance.Policy
	check := func(rule string, declared, broken bool, match func(*Finding) bool) {
		if !declared {
			return
		}
		out.Enabled = true
		out.Assertions = append(out.Assertions, rule)
		if !broken {
			return
		}
		v := compliance.Violation{Rule: rule}
		for i := range r.Findings {
			if f := &r.Findings[i]; f.Leaked && match != nil && match(f) {
				v.FindingIDs = append(v.FindingIDs, FindingID(f))
			}
		}
		if match == nil || len(v.FindingIDs) > 0 {
			out.Violations = append(out.Violations, v)
		}
	}
	check("max_risk_index", p.MaxRiskIndex != nil, p.MaxRiskIndex != nil && r.RiskIndex > *p.MaxRiskIndex, nil)
	check("max_findings", p.MaxFindings != nil, p.MaxFindings != nil && r.LeakedSecrets > *p.MaxFindings, nil)
	check("forbid_levels", len(p.ForbidLevels) > 0, true, func(f *Finding) bool { return containsInt(p.ForbidLevels, f.Level) })
	check("forbid_channels", len(p.ForbidChannels) > 0, true, func(f *Finding) bool { return containsString(p.ForbidChannels, f.Channel) })
	check("forbid_data_types", len(p.ForbidDataTypes) > 0, true, func(f *Finding) bool { return containsString(p.ForbidDataTypes, f.DataType) })
	return out
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ReportTime is the time compliance reports are made at
// (compliance.ReportTime: SOURCE_DATE_EPOCH when it is set, else now).
func ReportTime() (string, error) { return compliance.ReportTime() }

// ComplianceMode says what each scan result carries of the compliance
// mapping.
type ComplianceMode uint8

// Compliance modes: the summary (status, controls at risk, the frameworks
// at risk) is the default; full is the whole section with its evidence,
// evidence matrix and integrity digest; off leaves it out.
const (
	ComplianceSummary ComplianceMode = iota
	ComplianceFull
	ComplianceOff
)

// ComplianceModes are the names ParseComplianceMode takes.
var ComplianceModes = []string{"summary", "full", "off"}

// ParseComplianceMode reads a mode's name.
func ParseComplianceMode(s string) (ComplianceMode, bool) {
	for i, n := range ComplianceModes {
		if s == n {
			return ComplianceMode(i), true
		}
	}
	return 0, false
}

// ComplianceResult is a result's compliance: the assessment always, the
// whole section in full mode.
type ComplianceResult struct {
	Assessment compliance.Assessment
	Report     *compliance.Report // ComplianceFull only
}

// MarshalJSON writes the whole section when there is one, else the
// summary.
func (c *ComplianceResult) MarshalJSON() ([]byte, error) {
	if c.Report != nil {
		return json.Marshal(c.Report)
	}
	return c.appendSummary(nil), nil
}

// appendSummary writes {"status", "frameworks_clear", "controls_at_risk",
// "frameworks_at_risk"}: framework ids are ASCII, no escaping needed.
func (c *ComplianceResult) appendSummary(dst []byte) []byte {
	a := &c.Assessment
	if a.FrameworksAtRisk == 0 {
		dst = append(dst, `{"status":"compliant","frameworks_clear":`...)
	} else {
		dst = append(dst, `{"status":"non_compliant","frameworks_clear":`...)
	}
	dst = strconv.AppendInt(dst, int64(a.Clear()), 10)
	dst = append(dst, `,"frameworks":`...)
	dst = strconv.AppendInt(dst, int64(len(compliance.Frameworks)), 10)
	dst = append(dst, `,"controls_at_risk":`...)
	dst = strconv.AppendInt(dst, int64(a.ControlsAtRisk), 10)
	dst = append(dst, `,"frameworks_at_risk":[`...)
	var buf [16]int
	for k, i := range a.AppendFailed(buf[:0]) {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, compliance.Frameworks[i].ID...)
		dst = append(dst, '"')
	}
	return append(dst, "]}"...)
}

// appendJSON writes the compliance member's value for Result.AppendJSON.
func (c *ComplianceResult) appendJSON(dst []byte) []byte {
	if c.Report == nil {
		return c.appendSummary(dst)
	}
	b, err := json.Marshal(c.Report)
	if err != nil { // the report holds only strings, numbers and lists
		return append(dst, "null"...)
	}
	return append(dst, b...)
}

// assessCompliance gives the result its compliance, as the scanner's mode
// asks.
func (sc *Scanner) assessCompliance(res *Result) {
	if sc.Compliance == ComplianceOff {
		res.Compliance = nil
		return
	}
	c := &sc.tcomp
	if !sc.transient {
		c = new(ComplianceResult)
	}
	if sc.Compliance == ComplianceFull {
		in := res.ComplianceInput(sc.cfg, sc.ReportTime)
		c.Report = compliance.Evaluate(&in)
		c.Assessment = compliance.Assess(&in)
	} else {
		// Ids are only needed for the evidence: the assessment reads the
		// leaked findings' channels, types and levels from a reused list.
		sc.cin = sc.cin[:0]
		for i := range res.Findings {
			if f := &res.Findings[i]; f.Leaked {
				sc.cin = append(sc.cin, compliance.Finding{Channel: f.Channel, DataType: f.DataType, Level: f.Level})
			}
		}
		in := compliance.Input{RiskIndex: res.RiskIndex, PrivacyScore: res.PrivacyScore, Blocked: res.Blocked, Findings: sc.cin}
		if sc.cfg.Policy.declared() {
			in.Policy = policyFindings(&sc.cfg.Policy, res)
		}
		c.Report = nil
		c.Assessment = compliance.Assess(&in)
	}
	res.Compliance = c
}

// declared reports whether the policy declares any assertion.
func (p *Policy) declared() bool {
	return p.MaxRiskIndex != nil || p.MaxFindings != nil || len(p.ForbidLevels)+len(p.ForbidChannels)+len(p.ForbidDataTypes) > 0
}

// ComplianceTotals counts the compliance of a scan's traces: per
// framework the traces that put it at risk, and the controls any trace put
// at risk.
type ComplianceTotals struct {
	Traces       int            `json:"traces"`
	TracesAtRisk int            `json:"traces_at_risk"`
	Frameworks   map[string]int `json:"frameworks_at_risk"` // framework id: traces
	Controls     int            `json:"controls_at_risk"`   // controls some trace put at risk
	controls     uint64
}

func (t *ComplianceTotals) add(a *compliance.Assessment) {
	t.Traces++
	if a.FrameworksAtRisk == 0 {
		return
	}
	t.TracesAtRisk++
	if t.Frameworks == nil {
		t.Frameworks = map[string]int{}
	}
	for i := range compliance.Frameworks {
		if a.FrameworkAtRisk(i) {
			t.Frameworks[compliance.Frameworks[i].ID]++
		}
	}
	t.controls |= a.Controls
	t.Controls = bits.OnesCount64(t.controls)
}

// Clear is the number of frameworks no trace put at risk.
func (t *ComplianceTotals) Clear() int { return len(compliance.Frameworks) - len(t.Frameworks) }

// storedCompliance counts a recorded run's compliance from its metrics;
// nil when the run was recorded without it. The controls any trace put at
// risk are not recorded, only their number per trace: Controls is -1.
func storedCompliance(ctx context.Context, st ScanStore, ref model.RunRef) (*ComplianceTotals, error) {
	vals, err := st.Values(ctx, ref, "compliance_controls_at_risk")
	if err != nil || len(vals) == 0 {
		return nil, err
	}
	t := &ComplianceTotals{Traces: len(vals), Controls: -1}
	for _, v := range vals {
		if v.Value > 0 {
			t.TracesAtRisk++
		}
	}
	for _, f := range compliance.Frameworks {
		fv, err := st.Values(ctx, ref, ComplianceMetricPrefix+f.ID)
		if err != nil {
			return nil, err
		}
		for _, v := range fv {
			if v.Value > 0 {
				if t.Frameworks == nil {
					t.Frameworks = map[string]int{}
				}
				t.Frameworks[f.ID]++
			}
		}
	}
	return t, nil
}

// Line is the scan's compliance in one line, as the engine's CLI prints a
// run's: "compliance: 1/14 frameworks clear (22 controls at risk)", with
// the traces behind it when there are several.
func (t *ComplianceTotals) Line() string {
	s := "compliance: " + strconv.Itoa(t.Clear()) + "/" + strconv.Itoa(len(compliance.Frameworks)) + " frameworks clear ("
	if t.Controls >= 0 {
		s += strconv.Itoa(t.Controls) + " "
	}
	s += "controls at risk"
	if t.Traces > 1 || t.Controls < 0 {
		s += " in " + strconv.Itoa(t.TracesAtRisk) + " of " + strconv.Itoa(t.Traces) + " traces"
	}
	return s + "); a mapping of observed leaks, not a certification"
}

// AtRisk returns the frameworks of ids (framework ids, or "any" for every
// framework) that some trace put at risk, in report order, each with the
// number of traces.
func (t *ComplianceTotals) AtRisk(ids []string) []string {
	var out []string
	for _, f := range compliance.Frameworks {
		n := t.Frameworks[f.ID]
		if n > 0 && (containsString(ids, "any") || containsString(ids, f.ID)) {
			out = append(out, f.ID+" ("+strconv.Itoa(n)+" trace"+map[bool]string{true: "", false: "s"}[n == 1]+")")
		}
	}
	return out
}

// ComplianceFrameworkIDs are the ids --fail-on-compliance takes, with "any".
func ComplianceFrameworkIDs() []string {
	out := []string{"any"}
	for _, f := range compliance.Frameworks {
		out = append(out, f.ID)
	}
	return out
}
