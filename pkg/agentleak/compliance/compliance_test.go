package compliance

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func control(r *Report, id string) *Control {
	for i := range r.Frameworks {
		for j := range r.Frameworks[i].Controls {
			if c := &r.Frameworks[i].Controls[j]; c.ID == id {
				return c
			}
		}
	}
	return nil
}

// TestNothingLeaked: a clean run puts no control at risk; the two policy
// controls are not assessed without a policy, the NIST measure is info.
func TestNothingLeaked(t *testing.T) {
	r := Evaluate(&Input{RunID: "r", GeneratedAt: "2026-01-01T00:00:00+00:00"})
	if r.Summary != (Summary{Total: 14, Compliant: 14, ControlsNotAssessed: 2}) {
		t.Fatalf("summary %+v", r.Summary)
	}
	if r.Posture.Status != "compliant" || len(r.Posture.Failed) != 0 || r.Assurance.Status != "observed_clear" || r.Assurance.EvidenceGrade != "trace_only" {
		t.Fatalf("posture %+v assurance %+v", r.Posture, r.Assurance)
	}
	for id, want := range map[string]string{"gdpr.art5.1b": NotAssessed, "gdpr.art25": NotAssessed, "nist.measure2.7": Info, "owasp.llm02": OK} {
		if got := control(r, id).Status; got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
	if len(r.EvidenceMatrix) != 0 {
		t.Fatalf("matrix %+v", r.EvidenceMatrix)
	}
}

// TestRulesByHand checks controls of every rule shape on one run worked
// out by hand from the mapping's definition.
func TestRulesByHand(t *testing.T) {
	in := &Input{
		RunID: "run-é", GeneratedAt: "2026-01-01T00:00:00+00:00", RiskIndex: 0.4, PrivacyScore: 60, Blocked: true,
		Findings: []Finding{
			{ID: "finding_002", Channel: "log", DataType: "credit_card", Level: 4},
			{ID: "finding_003", Channel: "final_output", DataType: "person_name", Level: 1},
			{ID: "finding_010", Channel: "tool_call", DataType: "health_condition", Level: 3},
			{ID: "finding_004", Channel: "final_output", DataType: "bearer_token", Level: 4},
		},
	}
	r := Evaluate(in)
	cases := map[string][]string{
		"gdpr.art5.1c":                {"log", "tool_call"},
		"gdpr.art5.1f":                {"final_output", "log", "tool_call"},
		"gdpr.art9":                   {"health_condition"},
		"gdpr.art32":                  {}, // bearer_token is in no group
		"law25.sensitive":             {"L3", "L4"},
		"nist.privacy_enhanced":       {"RI 0.40", "L4"},
		"nist.manage1.3":              {"blocked"},
		"owasp.llm06":                 {"tool_call"},
		"hipaa.164.502b":              {"health_condition"},
		"hipaa.164.514":               {"health_condition", "person_name"},
		"pci.req4":                    {"final_output", "log", "tool_call"},
		"pci.req3.4":                  {"log", "tool_call"},
		"tcpa.outbound_action":        {"final_output", "tool_call"},
		"real_estate.client_data":     {"person_name"},
		"insurance.policyholder_data": {"health_condition"},
	}
	for id, want := range cases {
		c := control(r, id)
		if !reflect.DeepEqual(c.Evidence, want) {
			t.Errorf("%s: evidence %q, want %q", id, c.Evidence, want)
		}
		if st := c.Status; (st == AtRisk) != (len(want) > 0) {
			t.Errorf("%s: status %s with evidence %q", id, st, want)
		}
	}
	// "L4" matches both level 4 findings, "RI 0.40" none.
	if d := control(r, "nist.privacy_enhanced").EvidenceDetails; !reflect.DeepEqual(d.FindingIDs, []string{"finding_002", "finding_004"}) || !reflect.DeepEqual(d.Levels, []int{4}) {
		t.Errorf("privacy_enhanced details %+v", d)
	}
	// pci.req4's channel tokens match every finding on them, cardholder
	// or not.
	if d := control(r, "pci.req4").EvidenceDetails; len(d.FindingIDs) != 4 {
		t.Errorf("pci.req4 details %+v", d)
	}
	if d := control(r, "nist.manage1.3").EvidenceDetails; len(d.FindingIDs) != 0 {
		t.Errorf("blocked matches no finding: %+v", d)
	}
	// The matrix lists every leaked finding, sorted as strings.
	var ids []string
	for _, e := range r.EvidenceMatrix {
		ids = append(ids, e.FindingID)
	}
	if !reflect.DeepEqual(ids, []string{"finding_002", "finding_003", "finding_004", "finding_010"}) {
		t.Errorf("matrix ids %q", ids)
	}
	// Posture: most controls at risk first, ties in framework order.
	for i := 1; i < len(r.Posture.Failed); i++ {
		if r.Posture.Failed[i].AtRisk > r.Posture.Failed[i-1].AtRisk {
			t.Fatalf("posture not sorted: %+v", r.Posture.Failed)
		}
	}
}

// TestPolicyControls: a declared assertion makes its control assessed, and
// a violation's findings are the control's evidence.
func TestPolicyControls(t *testing.T) {
	in := &Input{
		RunID: "r", GeneratedAt: "g",
		Findings: []Finding{{ID: "finding_001", Channel: "log", DataType: "email", Level: 2}, {ID: "finding_002", Channel: "final_output", DataType: "ssn", Level: 4}},
		Policy:   Policy{Enabled: true, Assertions: []string{"forbid_data_types", "forbid_channels"}, Violations: []Violation{{Rule: "forbid_data_types", FindingIDs: []string{"finding_002"}}}},
	}
	r := Evaluate(in)
	c := control(r, "gdpr.art5.1b")
	if c.Status != AtRisk || !reflect.DeepEqual(c.Evidence, []string{"policy:forbid_data_types"}) || !reflect.DeepEqual(c.EvidenceDetails.FindingIDs, []string{"finding_002"}) || !reflect.DeepEqual(c.EvidenceDetails.PolicyRules, []string{"forbid_data_types"}) {
		t.Errorf("art5.1b %+v", c)
	}
	if c := control(r, "gdpr.art25"); c.Status != NotAssessed || c.AssessmentBasis != "trace_and_policy" {
		t.Errorf("art25 %+v", c)
	}
	if r.Assurance.EvidenceGrade != "trace_and_policy" || !reflect.DeepEqual(r.Assurance.PolicyAssertions, []string{"forbid_channels", "forbid_data_types"}) || r.Summary.ControlsNotAssessed != 1 {
		t.Errorf("assurance %+v summary %+v", r.Assurance, r.Summary)
	}
	in.Policy.Violations = nil
	if c := control(Evaluate(in), "gdpr.art5.1b"); c.Status != OK {
		t.Errorf("assessed and not broken: %s", c.Status)
	}
}

// TestDigestCanonicalJSON recomputes a digest from the canonical text
// written by hand: sorted keys, no spaces, non-ASCII escaped, a whole
// risk index with ".0".
func TestDigestCanonicalJSON(t *testing.T) {
	in := &Input{RunID: "ré😀\"<&>", GeneratedAt: "2026-01-01T00:00:00+00:00", RiskIndex: 1, PrivacyScore: 0}
	m := []MatrixEntry{{FindingID: "finding_001", Frameworks: []string{"gdpr"}, Controls: []string{"gdpr.art5.1f"}}}
	text := `{"evidence_matrix":[{"controls":["gdpr.art5.1f"],"finding_id":"finding_001","frameworks":["gdpr"]}],"generated_at":"2026-01-01T00:00:00+00:00","privacy_score":0,"risk_index":1.0,"run_id":"r\u00e9\ud83d\ude00\"<&>"}`
	sum := sha256.Sum256([]byte(text))
	if got, want := Digest(in, m), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
	for f, want := range map[float64]string{0: "0.0", 0.6667: "0.6667", 0.0001: "0.0001", 0.00001: "1e-05", 12: "12.0", 1e16: "1e+16", 2.5e17: "2.5e+17"} {
		if got := string(appendPyFloat(nil, f)); got != want {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
}

// TestAssessAgreesWithEvaluate: the cheap assessment counts what the whole
// evaluation reports, on random runs.
func TestAssessAgreesWithEvaluate(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	types := append(append([]string{"bearer_token", "canary", "salary"}, typeNames...), "x")
	for n := 0; n < 2000; n++ {
		in := &Input{RunID: "r", RiskIndex: float64(rng.Intn(100)) / 100, Blocked: rng.Intn(2) == 0}
		for k := rng.Intn(6); k > 0; k-- {
			in.Findings = append(in.Findings, Finding{ID: "finding_" + strings.Repeat("0", rng.Intn(2)) + string(rune('a'+k)), Channel: channelNames[rng.Intn(len(channelNames))], DataType: types[rng.Intn(len(types))], Level: 1 + rng.Intn(4)})
		}
		if rng.Intn(4) == 0 {
			in.Policy = Policy{Enabled: true, Assertions: []string{"forbid_channels", "require_explicit_vault"}, Violations: []Violation{{Rule: "require_explicit_vault"}}}
		}
		a, r := Assess(in), Evaluate(in)
		if a.ControlsAtRisk != r.Summary.ControlsAtRisk || a.FrameworksAtRisk != r.Summary.NonCompliant || a.ControlsNotAssessed != r.Summary.ControlsNotAssessed {
			t.Fatalf("run %d: assess %+v, evaluate %+v", n, a, r.Summary)
		}
		for i, fw := range r.Frameworks {
			if a.FrameworkAtRisk(i) != (fw.AtRisk > 0) || (a.Controls&ControlsOf(i) != 0) != (fw.AtRisk > 0) {
				t.Fatalf("run %d: framework %s", n, fw.ID)
			}
		}
		if got := a.FailedFrameworks(); !reflect.DeepEqual(got, r.Posture.FailedFrameworks) {
			t.Fatalf("run %d: failed %q, posture %q", n, got, r.Posture.FailedFrameworks)
		}
	}
}
