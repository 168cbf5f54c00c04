package report

import (
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/risk"
)

func TestScorersGate(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	res := []risk.Result{
		{Key: "a", Domain: "d", Score: f(9.5), Level: risk.Critical},
		{Key: "b", Domain: "d", Score: f(5), Level: risk.High},
		{Key: "c", Score: f(1), Level: risk.Low},
		{Key: "e", Level: risk.NoData},
		{Key: "x", Level: risk.Failed, Error: "function gave NaN for value = 1"},
	}
	for _, tc := range []struct {
		gate     risk.Level
		failed   string
		findings string
	}{
		{"", "", "a b"},
		{risk.High, "a b e x", "a b e x"},
		{risk.Critical, "a e x", "a e x"},
		{risk.Low, "a b c e x", "a b c e x"},
		{risk.NoData, "e x", "e x"},
	} {
		var failed, findings []string
		for _, c := range (Scorers{Results: res, FailOn: risk.Gate{Level: tc.gate}}).Checks().Checks {
			if c.Failed {
				failed = append(failed, c.Name)
				if c.Name != "x" && c.Name != "e" && !strings.Contains(c.Message, "--fail-on "+string(tc.gate)) {
					t.Errorf("gate %s: message %q lacks the gate", tc.gate, c.Message)
				}
			}
		}
		for _, x := range (Scorers{Results: res, FailOn: risk.Gate{Level: tc.gate}}).Findings() {
			findings = append(findings, strings.TrimPrefix(x.RuleID, "risk-scorer/"))
		}
		if got := strings.Join(failed, " "); got != tc.failed {
			t.Errorf("gate %q: failed %q, want %q", tc.gate, got, tc.failed)
		}
		if got := strings.Join(findings, " "); got != tc.findings {
			t.Errorf("gate %q: findings %q, want %q", tc.gate, got, tc.findings)
		}
	}
}

func TestTraceFindingsRedacted(t *testing.T) {
	r := &agentleak.Result{
		ScenarioID: "s", RunID: "r", File: "t.jsonl", Line: 3, Blocked: true, Verdict: "Fail", BlockReasons: []string{"x"},
		Findings: []agentleak.Finding{
			{EventID: "e1", Channel: "log", DataType: "email", Value: "jo@example.com", Redacted: "jo**********om", Level: 2, Leaked: true},
			{EventID: "e2", Channel: "log", DataType: "ssn", Value: "123", Redacted: "1*3", Level: 4, Leaked: false},
		},
	}
	fs := Trace{Result: r}.Findings()
	if len(fs) != 1 {
		t.Fatalf("findings = %d, want 1 (only leaked)", len(fs))
	}
	f := fs[0]
	if f.URI != "t.jsonl" || f.Line != 3 || f.Level != "warning" || f.Properties["eventId"] != "e1" || f.Properties["channel"] != "log" {
		t.Errorf("finding = %+v", f)
	}
	if strings.Contains(f.Message, "jo@example.com") || f.Properties["value"] != "jo**********om" {
		t.Errorf("value not redacted: %+v", f)
	}
	if shown := (Trace{Result: r, ShowValues: true}).Findings()[0]; shown.Properties["value"] != "jo@example.com" {
		t.Errorf("--show-values: value %v", shown.Properties["value"])
	}
	c := Trace{Result: r}.Checks().Checks[0]
	if !c.Failed || !strings.Contains(c.Message, "email") || !strings.Contains(c.Message, "log") {
		t.Errorf("check = %+v", c)
	}
}

// A trace read from a JSON document is located by the event's JSON pointer
// (the document has no line per trace); a JSONL trace by its line alone.
func TestTraceFindingsLocated(t *testing.T) {
	leak := []agentleak.Finding{{EventID: "e3", Channel: "tool_input", DataType: "email", Redacted: "j***", Level: 2, Leaked: true, Event: 2}}
	doc := &agentleak.Result{ScenarioID: "s", File: "traces.json", InDoc: true, Pointer: "/1", Findings: leak}
	if f := (Trace{Result: doc}).Findings()[0]; f.URI != "traces.json" || f.Pointer != "/1/events/2" {
		t.Errorf("JSON document trace: got %s %q, want traces.json /1/events/2", f.URI, f.Pointer)
	}
	one := &agentleak.Result{ScenarioID: "s", File: "trace.json", InDoc: true, Findings: leak}
	if f := (Trace{Result: one}).Findings()[0]; f.Pointer != "/events/2" {
		t.Errorf("single-trace document: got %q, want /events/2", f.Pointer)
	}
	jsonl := &agentleak.Result{ScenarioID: "s", File: "traces.jsonl", Line: 7, Findings: leak}
	if f := (Trace{Result: jsonl}).Findings()[0]; f.Line != 7 || f.Pointer != "" {
		t.Errorf("JSONL trace: got line %d pointer %q, want 7 and none", f.Line, f.Pointer)
	}
}
