package agentleak

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/evaluation"
	"github.com/lfcli/lf/pkg/store"
)

// RunSpec is the `agentleak:` entry of a run file's evaluations; paths are
// relative to the run file.
type RunSpec struct {
	EvaluationKey string   `json:"evaluation_key"`
	Config        string   `json:"config"`
	Vaults        []string `json:"vaults"`
	Traces        []string `json:"traces"`
	// Gate makes a blocked trace, or inputs holding no trace, fail `lf run`
	// with exit 1.
	Gate bool `json:"gate"`
	// FailOnCompliance fails `lf run` when a trace puts a control of one
	// of these frameworks ("any": of any) at risk; it gates by itself.
	FailOnCompliance []string `json:"fail_on_compliance"`
}

// Evaluation is the AgentLeak scan as a run file names it. A run whose
// traces, vaults and config have not changed since the latest recorded
// scan keeps that scan instead of recording the same one again.
var Evaluation = evaluation.Evaluation{Name: EvaluationName, Run: runEvaluation}

// EvaluationName is the AgentLeak scan's name in run files.
const EvaluationName = "agentleak"

// maxNamesShown bounds the blocked trace names a summary line lists; the
// report's data lists them all.
const maxNamesShown = 3

func runEvaluation(ctx context.Context, env evaluation.Env, raw json.RawMessage, st *store.Store) (evaluation.Report, error) {
	var spec RunSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return evaluation.Report{}, diag.Invalid(diag.List{{File: env.RunFile, Pointer: env.Pointer, Msg: err.Error()}})
	}
	at := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(env.BaseDir, p)
	}
	in := ScanInputs{
		Config:        at(spec.Config),
		EvaluationKey: spec.EvaluationKey,
		Display:       func(p string) string { return diag.Rel(env.ProjectDir, p) },
		SkipUnchanged: true,
		Now:           env.Now,
	}
	for _, v := range spec.Vaults {
		in.Vaults = append(in.Vaults, at(v))
	}
	for _, t := range spec.Traces {
		in.Traces = append(in.Traces, at(t))
	}
	sr, err := Scan(ctx, in, st.Backend)
	if err != nil {
		return evaluation.Report{}, err
	}
	return scanReport(sr, spec.Gate, spec.FailOnCompliance), nil
}

// scanReport is the run-file summary of a scan: counts, at most a few
// blocked trace names, the run recorded.
func scanReport(sr *ScanReport, gate bool, failOnCompliance []string) evaluation.Report {
	rep := evaluation.Report{Name: EvaluationName, Gate: gate || len(failOnCompliance) > 0, RunID: sr.RunID, Data: sr}
	for _, w := range sr.Warnings {
		rep.Lines = append(rep.Lines, w.String())
	}
	switch sr.Status {
	case ScanUnchanged:
		rep.Skipped = true
		rep.Title = fmt.Sprintf("agentleak %s: inputs unchanged since run %s, not scanned again (%d trace%s)", sr.EvaluationKey, sr.RunID, sr.Traces, plural(sr.Traces))
	default:
		rep.Title = fmt.Sprintf("agentleak %s: %d trace%s scanned", sr.EvaluationKey, sr.Traces, plural(sr.Traces))
		var vs []string
		for _, v := range []string{VerdictPass, VerdictConditional, VerdictHighRisk, VerdictFail} {
			if sr.Verdicts[v] > 0 {
				vs = append(vs, fmt.Sprintf("%d %s", sr.Verdicts[v], v))
			}
		}
		if len(vs) > 0 {
			rep.Lines = append(rep.Lines, "verdicts: "+strings.Join(vs, ", "))
		}
	}
	if sr.Compliance != nil && sr.Traces > 0 {
		rep.Lines = append(rep.Lines, sr.Compliance.Line())
	}
	var reasons []string
	// Blocked traces are the condition of the plain gate; a run file that
	// asks only for the compliance gate is not failed by them.
	if sr.Blocked > 0 && (gate || len(failOnCompliance) == 0) {
		reasons = append(reasons, fmt.Sprintf("%d of %d trace%s blocked", sr.Blocked, sr.Traces, plural(sr.Traces)))
	}
	if sr.Blocked > 0 {
		rep.Lines = append(rep.Lines, "blocked: "+FewNames(sr.BlockedIDs, maxNamesShown))
	}
	if len(failOnCompliance) > 0 && sr.Status != ScanEmpty {
		switch {
		case sr.Compliance == nil:
			// A run recorded before lf kept compliance: the gate cannot
			// see, so it does not pass.
			reasons = append(reasons, "no compliance recorded for run "+sr.RunID+" (recorded by an older lf): scan again")
		default:
			if at := sr.Compliance.AtRisk(failOnCompliance); len(at) > 0 {
				reasons = append(reasons, "controls at risk in "+strings.Join(at, ", "))
			}
		}
	}
	if len(reasons) > 0 {
		rep.Failed = true
		rep.Reason = fmt.Sprintf("agentleak %s: %s", sr.EvaluationKey, strings.Join(reasons, "; "))
	}
	switch sr.Status {
	case ScanEmpty:
		rep.Failed = true
		rep.Reason = fmt.Sprintf("agentleak %s: the traces hold no trace to scan", sr.EvaluationKey)
		rep.Lines = append(rep.Lines, "no trace in the inputs: nothing scanned, nothing recorded")
	case ScanRecorded:
		rep.Lines = append(rep.Lines, "recorded as run "+sr.RunID)
	}
	return rep
}

// FewNames is "N (a, b, c)" for at most max names, else
// "N (a, b, c and K more; -o json lists them all)".
func FewNames(names []string, max int) string {
	if len(names) <= max {
		return fmt.Sprintf("%d (%s)", len(names), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%d (%s and %d more; -o json lists them all)", len(names), strings.Join(names[:max], ", "), len(names)-max)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
