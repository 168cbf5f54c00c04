// Package report is lf's risk report: it turns lf's results into what
// reports show, checks and findings for the CI formats (JUnit, SARIF,
// Markdown) and the data of the HTML report read from the store, and writes
// that report as one self-contained HTML file (html.go). The format writers
// themselves are pkg/output, which knows no domain type.
package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/risk"
)

// LevelOrder lists risk levels worst first, for summaries.
var LevelOrder = []string{"critical", "high", "medium", "low", "no_data", "error"}

// Scorers is a risk-scorer overview under a gate: a scorer fails when its
// level is at or above the gate, or is error (risk.Gate's rule; no gate: none
// fails).
type Scorers struct {
	Suite   string
	Results []risk.Result
	FailOn  risk.Gate
	// Rise compares each scorer with a baseline (--fail-on-rise,
	// --baseline); see rise.go.
	Rise risk.RiseGate
}

func (s Scorers) fails(r risk.Result) bool {
	return s.FailOn.Trips(r)
}

func scoreText(r risk.Result) string {
	if r.Score == nil {
		return "-"
	}
	return strconv.FormatFloat(*r.Score, 'f', 2, 64)
}

func runsText(r risk.Result) string {
	if len(r.Runs) == 0 {
		return "-"
	}
	parts := make([]string, len(r.Runs))
	for i, x := range r.Runs {
		parts[i] = x.EvaluationKey + "/" + x.ID
	}
	return strings.Join(parts, ", ")
}

// Checks gives one check per risk scorer, classed by domain.
func (s Scorers) Checks() output.Suite {
	name := s.Suite
	if name == "" {
		name = "lf overview risk-scorers"
	}
	suite := output.Suite{Name: name}
	for _, r := range s.Results {
		detail := fmt.Sprintf("score %s, level %s, %d value%s\nmethodology %s, metric %s, aggregation %s\nruns: %s",
			scoreText(r), r.Level, r.Values, plural(r.Values), r.RiskScoringMethodologyKey, r.Metric, r.Aggregation, runsText(r))
		if r.Error != "" {
			detail += "\nerror: " + r.Error
		}
		c := output.Check{
			Class: "risk_scorer." + nonEmpty(r.Domain, "no_domain"), Name: r.Key, Level: string(r.Level), Detail: detail,
			Columns: []output.Cell{{Name: "domain", Value: r.Domain}, {Name: "score", Value: scoreText(r)}, {Name: "values", Value: strconv.Itoa(r.Values)}, {Name: "runs", Value: runsText(r)}},
		}
		if s.fails(r) {
			c.Failed = true
			why := "at or above --fail-on " + string(s.FailOn.Level)
			switch r.Level {
			case risk.Failed:
				why = "an error fails every gate: " + r.Error
			case risk.NoData:
				why = "no value in scope: a gate that cannot see fails --fail-on " + string(s.FailOn.Level)
			}
			c.Message = fmt.Sprintf("%s: score %s, level %s (%s), %d value%s from runs %s", r.Key, scoreText(r), r.Level, why, r.Values, plural(r.Values), runsText(r))
		}
		s.addRise(&c, r)
		suite.Checks = append(suite.Checks, c)
	}
	return suite
}

// Findings gives a SARIF result per risk scorer at or above the gate; with
// no gate, per scorer at high or above.
func (s Scorers) Findings() []output.Finding {
	gate := s.FailOn.Level
	if gate == "" {
		gate = risk.High
	}
	var out []output.Finding
	for _, r := range s.Results {
		if f, ok := s.riseFinding(r); ok {
			out = append(out, f)
		}
		if (gate == risk.NoData || r.Level.Rank() < gate.Rank()) && !s.fails(r) {
			continue
		}
		level := "warning"
		if r.Level == risk.Critical || s.fails(r) {
			level = "error"
		}
		out = append(out, output.Finding{
			RuleID: "risk-scorer/" + r.Key, RuleName: nonEmpty(r.DisplayName, r.Key), Description: "risk scorer " + r.Key + " (" + r.Domain + ")",
			Level:   level,
			Message: fmt.Sprintf("risk scorer %s is %s (score %s from %d value%s; runs %s)", r.Key, r.Level, scoreText(r), r.Values, plural(r.Values), runsText(r)),
			Properties: map[string]any{
				"riskLevel": string(r.Level), "score": r.Score, "domain": r.Domain, "runs": runsText(r),
			},
		})
	}
	return out
}

// Trace is one scanned AgentLeak trace. Values are redacted unless
// ShowValues is set.
type Trace struct {
	Result     *agentleak.Result
	ShowValues bool
}

// Checks gives one check for the trace, failing when it was blocked.
func (t Trace) Checks() output.Suite {
	r := t.Result
	types, channels := leakedTypesAndChannels(r)
	c := output.Check{
		Class:  "agentleak." + nonEmpty(r.File, "stdin"),
		Name:   r.ScenarioID + "/" + r.RunID,
		Level:  r.Verdict,
		Failed: r.Blocked,
		Detail: fmt.Sprintf("risk index %.4f, privacy score %d, verdict %s, %d of %d secrets leaked\nleaked data types: %s\nchannels: %s",
			r.RiskIndex, r.PrivacyScore, r.Verdict, r.LeakedSecrets, r.VaultSecrets, nonEmpty(strings.Join(types, ", "), "none"), nonEmpty(strings.Join(channels, ", "), "none")),
		Columns: []output.Cell{{Name: "risk index", Value: strconv.FormatFloat(r.RiskIndex, 'f', 4, 64)}, {Name: "privacy score", Value: strconv.Itoa(r.PrivacyScore)}, {Name: "leaked types", Value: nonEmpty(strings.Join(types, ", "), "-")}, {Name: "channels", Value: nonEmpty(strings.Join(channels, ", "), "-")}},
	}
	if cr := r.Compliance; cr != nil {
		a := &cr.Assessment
		at := a.FailedFrameworks()
		c.Detail += fmt.Sprintf("\ncompliance: %d/%d frameworks clear, %d controls at risk", a.Clear(), a.Clear()+a.FrameworksAtRisk, a.ControlsAtRisk)
		if len(at) > 0 {
			c.Detail += " (" + strings.Join(at, ", ") + ")"
		}
		c.Columns = append(c.Columns, output.Cell{Name: "frameworks at risk", Value: nonEmpty(strings.Join(at, ", "), "-")})
	}
	if r.Blocked {
		c.Message = fmt.Sprintf("blocked: %s; leaked %s on %s", strings.Join(r.BlockReasons, "; "), nonEmpty(strings.Join(types, ", "), "nothing"), nonEmpty(strings.Join(channels, ", "), "no channel"))
	}
	return output.Suite{Name: "lf agentleak scan", Checks: []output.Check{c}}
}

// Findings gives a SARIF result per leaked finding: the rule is the data
// type, the severity its level (4 and 3 error, 2 warning, 1 note), the
// location the trace's file and line.
func (t Trace) Findings() []output.Finding {
	r := t.Result
	var out []output.Finding
	for i := range r.Findings {
		f := &r.Findings[i]
		if !f.Leaked {
			continue
		}
		value := f.Redacted
		if t.ShowValues && f.Value != "" {
			value = f.Value
		}
		props := map[string]any{
			"eventId": f.EventID, "channel": f.Channel, "dataType": f.DataType, "sensitivityLevel": f.Level,
			"detector": f.Detector, "confidence": f.Confidence, "scenarioId": r.ScenarioID, "runId": r.RunID, "value": value,
		}
		if m := complianceOf(r, f); m != nil {
			props["complianceFrameworks"], props["complianceControls"] = m.Frameworks, m.Controls
		}
		ptr := ""
		if r.InDoc { // a JSON file: the line is where the document starts, the pointer names the event
			ptr = r.Pointer + "/events/" + strconv.Itoa(f.Event)
		}
		out = append(out, output.Finding{
			RuleID: "agentleak/" + f.DataType, RuleName: f.DataType, Description: "sensitive data of type " + f.DataType + " leaked",
			Level:   sarifLevel(f.Level),
			Message: fmt.Sprintf("%s leaked on channel %s in event %s of %s/%s (%s)", f.DataType, f.Channel, f.EventID, r.ScenarioID, r.RunID, value),
			URI:     r.File, Line: r.Line, Pointer: ptr, Properties: props,
		})
	}
	return out
}

// complianceOf is the evidence-matrix entry of a leaked finding: the
// frameworks and controls it is evidence for (nil without a full
// compliance section).
func complianceOf(r *agentleak.Result, f *agentleak.Finding) *compliance.MatrixEntry {
	if r.Compliance == nil || r.Compliance.Report == nil {
		return nil
	}
	id := agentleak.FindingID(f)
	m := r.Compliance.Report.EvidenceMatrix
	i := sort.Search(len(m), func(i int) bool { return m[i].FindingID >= id })
	if i < len(m) && m[i].FindingID == id {
		return &m[i]
	}
	return nil
}

func sarifLevel(level int) string {
	switch {
	case level >= 3:
		return "error"
	case level == 2:
		return "warning"
	}
	return "note"
}

func leakedTypesAndChannels(r *agentleak.Result) (types, channels []string) {
	ts, cs := map[string]bool{}, map[string]bool{}
	for _, f := range r.Findings {
		if f.Leaked {
			ts[f.DataType], cs[f.Channel] = true, true
		}
	}
	return keys(ts), keys(cs)
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
