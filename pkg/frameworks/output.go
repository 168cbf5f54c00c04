package frameworks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/output"
)

func itoa(n int) string { return strconv.Itoa(n) }

// Report is the result of `lf overview compliance`, for every pkg/output
// format: the frameworks' results and the gate the CI formats fail on.
type Report struct {
	Results []Result
	Gate    Gate
	// GeneratedAt, Matrix and Integrity are the report time, the evidence
	// matrix and the digest over both (Seal).
	GeneratedAt string
	Matrix      []MatrixEntry
	Integrity   compliance.Integrity
}

// Sealed returns r with its evidence matrix and digest at the report time
// generatedAt (Seal), for the formats that show them.
func (r Report) Sealed(generatedAt string) Report {
	r.GeneratedAt = generatedAt
	r.Matrix, r.Integrity = Seal(r.Results, generatedAt)
	return r
}

// Data is what -o json and yaml write: the frameworks and, sealed, the
// report time, the evidence matrix and the digest.
func (r Report) Data() any {
	fs := output.Fields{{Key: "frameworks", Value: r.Results}}
	if r.Integrity.Digest != "" {
		fs = append(fs,
			output.Field{Key: "generated_at", Value: r.GeneratedAt},
			output.Field{Key: "evidence_matrix", Value: r.Matrix},
			output.Field{Key: "integrity", Value: r.Integrity})
	}
	return fs
}

// View is the table: one row per requirement.
func (r Report) View() any {
	rows := [][]string{}
	for _, f := range r.Results {
		for _, q := range f.Requirements {
			rows = append(rows, []string{f.Key, q.Key, q.Title, string(q.Status), string(q.MetAt), evidenceText(q.Evidence)})
		}
	}
	return &output.TableView{Header: []string{"FRAMEWORK", "REQUIREMENT", "TITLE", "STATUS", "MET_AT", "EVIDENCE"}, Rows: rows}
}

// evidenceShown is how many evidence scorers a line names (a requirement
// evidenced by a whole domain has hundreds); the rest are counted, and
// json, yaml and the HTML report list them all.
const evidenceShown = 10

// evidenceText names the evidence scorers with their levels, those above
// met_at first (what a reader acts on), then the others, each in key order.
func evidenceText(ev []Scorer) string {
	if len(ev) == 0 {
		return "-"
	}
	parts := make([]string, 0, min(len(ev), evidenceShown))
	for _, above := range []bool{true, false} {
		for _, e := range ev {
			if e.Above == above && len(parts) < evidenceShown {
				parts = append(parts, e.Key+"="+string(e.Level))
			}
		}
	}
	if n := len(ev) - len(parts); n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(parts, ", ")
}

func runsText(ev []Scorer) string {
	var runs []string
	for _, e := range ev {
		for _, r := range e.Runs {
			runs = append(runs, r.EvaluationKey+"/"+r.ID)
		}
	}
	if len(runs) == 0 {
		return "-"
	}
	return strings.Join(runs, ", ")
}

// Checks gives one check per requirement (JUnit, Markdown), failing those
// that trip the gate.
func (r Report) Checks() output.Suite {
	s := output.Suite{Name: "lf overview compliance"}
	for _, f := range r.Results {
		for _, q := range f.Requirements {
			c := output.Check{
				Class: f.Key, Name: q.Key, Level: string(q.Status), Failed: r.Gate.Fails(q),
				Columns: []output.Cell{
					{Name: "Framework", Value: f.Key},
					{Name: "Title", Value: q.Title},
					{Name: "Met at", Value: string(q.MetAt)},
					{Name: "Evidence", Value: evidenceText(q.Evidence)},
				},
			}
			if c.Failed {
				c.Message = message(f, q)
				c.Detail = "runs: " + runsText(q.Evidence)
			}
			s.Checks = append(s.Checks, c)
		}
	}
	return s
}

func message(f Result, q RequirementResult) string {
	return fmt.Sprintf("requirement %s/%s (%s) is %s: evidence %s, met at %s or below", f.Key, q.Key, q.Title, q.Status, evidenceText(q.Evidence), q.MetAt)
}

// Findings gives one SARIF result per requirement that is not met, located
// at its declaration: an error when it trips the gate, else a warning.
func (r Report) Findings() []output.Finding {
	var out []output.Finding
	for _, f := range r.Results {
		for _, q := range f.Requirements {
			if q.Status == Met {
				continue
			}
			level := "warning"
			if r.Gate.Fails(q) {
				level = "error"
			}
			out = append(out, output.Finding{
				RuleID: "compliance/" + f.Key + "/" + q.Key, RuleName: q.Title, Description: f.Name + ": " + q.Title,
				Level: level, Message: message(f, q), URI: q.File, Line: q.Line,
				Properties: map[string]any{"status": string(q.Status), "metAt": string(q.MetAt), "framework": f.Key, "runs": runsText(q.Evidence)},
			})
		}
	}
	return out
}

// Summary is the one line `lf run` prints for its compliance: step, as the
// AgentLeak scan prints its own: how many frameworks are met, and the
// requirements by status.
func Summary(rs []Result) string {
	met, counts := 0, map[Status]int{}
	n := 0
	for _, f := range rs {
		if f.Status == Met {
			met++
		}
		for _, q := range f.Requirements {
			counts[q.Status]++
			n++
		}
	}
	if len(rs) == 0 {
		return "Compliance: no frameworks stored (lf add -f FILE with a frameworks: list)"
	}
	parts := make([]string, 0, len(Statuses))
	for _, s := range Statuses {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	return fmt.Sprintf("Compliance: %d/%d framework%s met (%d requirement%s: %s)", met, len(rs), plural(len(rs)), n, plural(n), strings.Join(parts, ", "))
}
