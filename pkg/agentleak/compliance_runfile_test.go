package agentleak

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/schemas"
)

// TestComplianceSchemaListsEveryFramework keeps the run file schema's enum
// of fail_on_compliance in step with the mapping's frameworks.
func TestComplianceSchemaListsEveryFramework(t *testing.T) {
	var want []string
	want = append(want, ComplianceFrameworkIDs()...)
	if len(want) != len(compliance.Frameworks)+1 {
		t.Fatalf("ids %q", want)
	}
	got := runSchemaComplianceEnum(t)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schemas/run.schema.json fail_on_compliance enum %q, want %q", got, want)
	}
}

// TestRunFileComplianceGate: the gate fails on a framework at risk, passes
// on one that is clear, and fails when it cannot see.
func TestRunFileComplianceGate(t *testing.T) {
	totals := &ComplianceTotals{}
	totals.add(&compliance.Assessment{}) // a clean trace
	in := compliance.Input{Findings: []compliance.Finding{{Channel: "log", DataType: "email", Level: 2}}}
	a := compliance.Assess(&in)
	totals.add(&a)
	sr := &ScanReport{EvaluationKey: "k", Status: ScanRecorded, RunID: "r", Traces: 2, Compliance: totals}
	if rep := scanReport(sr, false, []string{"gdpr"}); !rep.GateFails() || rep.Reason != "agentleak k: controls at risk in gdpr (1 trace)" {
		t.Errorf("gdpr: %+v", rep)
	}
	if rep := scanReport(sr, false, []string{"hipaa"}); rep.GateFails() {
		t.Errorf("hipaa is clear: %+v", rep)
	}
	if rep := scanReport(sr, false, nil); rep.Gate {
		t.Errorf("no gate asked: %+v", rep)
	}
	sr.Blocked, sr.BlockedIDs = 1, []string{"x"}
	if rep := scanReport(sr, false, []string{"hipaa"}); rep.GateFails() {
		t.Errorf("the compliance gate alone failed on a blocked trace: %+v", rep)
	}
	if rep := scanReport(sr, true, []string{"hipaa"}); !rep.GateFails() {
		t.Errorf("gate: true and a blocked trace passed: %+v", rep)
	}
	sr.Compliance = nil
	if rep := scanReport(sr, false, []string{"hipaa"}); !rep.GateFails() {
		t.Errorf("a gate that cannot see passed: %+v", rep)
	}
}

func runSchemaComplianceEnum(t *testing.T) []string {
	t.Helper()
	b, err := schemas.FS.ReadFile("run.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Evaluations struct {
				Items struct {
					Properties struct {
						Agentleak struct {
							Properties struct {
								FailOnCompliance struct {
									Items struct {
										Enum []string `json:"enum"`
									} `json:"items"`
								} `json:"fail_on_compliance"`
							} `json:"properties"`
						} `json:"agentleak"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"evaluations"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties.Evaluations.Items.Properties.Agentleak.Properties.FailOnCompliance.Items.Enum
}
