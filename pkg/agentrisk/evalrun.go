package agentrisk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/evaluation"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
)

// Evaluation run vocabulary: risk scorers scope on these keys.
const (
	EvaluationKey = "agent_risk"
	ScorerKey     = "agent_risk"
	MetricScore   = "risk_score"
)

// metricKeys maps component names to their metric keys in evaluation runs.
var metricKeys = map[string]string{
	CompInjection:       "injection",
	CompToolDrift:       "tool_drift",
	CompExcessiveAgency: "excessive_agency",
	CompAnomaly:         "anomaly",
	CompPolicyViolation: "policy_violation",
}

// EvaluationRun turns the changes of one recalculation into an evaluation run
// (key agent_risk, one result per agent with task specification = AgentTaskKey(tenant, agent),
// metrics risk_score and each component), so core risk scorers can watch the
// agents.
func EvaluationRun(changes []Change, at time.Time) model.EvaluationRun {
	run := model.EvaluationRun{
		EvaluationKey: EvaluationKey,
		ID:            "agent_risk-" + at.UTC().Format("20060102T150405Z"),
		CreatedAt:     at.UTC(),
		Status:        model.StatusCompleted,
		Results:       []model.Result{},
	}
	for _, c := range changes {
		m := map[string]float64{MetricScore: float64(c.NewScore)}
		for _, comp := range c.Components {
			if k, ok := metricKeys[comp.Name]; ok {
				m[k] = comp.Value
			}
		}
		run.Results = append(run.Results, model.Result{TaskSpecificationKey: AgentTaskKey(c.TenantID, c.AgentID), ScorerKey: ScorerKey, Metrics: m})
	}
	return run
}

// AgentTaskKey is the task specification key of one agent in the agent_risk
// run: an agent is (tenant, agent), so the key is TENANT__AGENT with every
// "_" of the tenant written "_5f". The escaped tenant never holds "__", so
// the first "__" splits the key again and two agents never share a key.
func AgentTaskKey(tenant, agent string) string {
	return strings.ReplaceAll(tenant, "_", "_5f") + "__" + agent
}

// RunSpec is the spec of the agent_risk evaluation in a run file.
type RunSpec struct {
	Events     []string `json:"events"`                // paths or globs, relative to the run file
	RiskConfig string   `json:"risk_config,omitempty"` // a risk-config file, applied before scoring
	At         string   `json:"at,omitempty"`          // RFC 3339; default: the latest event ingested
}

// Evaluation is agent risk as a run file names it (agent_risk): ingest the
// events (idempotently), apply the risk config, recalculate at `at`
// (default: the latest event time, so the demo is reproducible) and record
// the run.
var Evaluation = evaluation.Evaluation{Name: EvaluationKey, Run: runEvaluation}

func runEvaluation(ctx context.Context, env evaluation.Env, raw json.RawMessage, st *store.Store) (evaluation.Report, error) {
	var spec RunSpec
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return evaluation.Report{}, diag.Invalid(diag.List{{File: env.RunFile, Pointer: env.Pointer, Msg: "agent_risk: " + err.Error() + " (expected {events: [paths], risk_config?, at?})"}})
	}
	bad := func(ptr, format string, args ...any) error {
		return diag.Invalid(diag.List{{File: env.RunFile, Pointer: env.Pointer + ptr, Msg: fmt.Sprintf(format, args...)}})
	}
	if len(spec.Events) == 0 {
		return evaluation.Report{}, bad("/events", "agent_risk needs events: [path or glob, ...]")
	}
	var at time.Time
	if spec.At != "" {
		var err error
		if at, err = time.Parse(time.RFC3339, spec.At); err != nil {
			return evaluation.Report{}, bad("/at", "at %q is not RFC 3339 (e.g. 2026-04-16T14:00:00Z)", spec.At)
		}
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(env.ProjectDir, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return p
	}
	files, err := eventFiles(env, spec.Events, bad)
	if err != nil {
		return evaluation.Report{}, err
	}
	// The risk config is checked before and applied after the events, so that
	// a problem in either stores nothing.
	var riskConfigs []RiskConfig
	if spec.RiskConfig != "" {
		p := spec.RiskConfig
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.BaseDir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return evaluation.Report{}, bad("/risk_config", "%v", err)
		}
		if riskConfigs, err = LoadRiskConfigs(p, rel(p)); err != nil {
			return evaluation.Report{}, err
		}
	}
	var srcs []Source
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return evaluation.Report{}, diag.Invalidf("%s: %v", rel(f), err)
		}
		defer fh.Close()
		srcs = append(srcs, Source{Name: rel(f), R: fh})
	}
	eng := NewEngine(st)
	res, err := Ingest(ctx, eng, srcs)
	if err != nil {
		return evaluation.Report{}, err
	}
	if riskConfigs != nil {
		if err := SetRiskConfigs(ctx, eng, riskConfigs); err != nil {
			return evaluation.Report{}, err
		}
	}
	if at.IsZero() {
		at = res.Latest
		if at.IsZero() {
			at = env.Now
		}
	}
	changes, err := Recalc(ctx, eng, RecalcOptions{At: at, Record: true})
	if err != nil {
		return evaluation.Report{}, err
	}
	return recalcReport(changes, res, at), nil
}

// eventFiles expands the spec's events paths and globs (relative to the
// run file), each of which must match a file.
func eventFiles(env evaluation.Env, patterns []string, bad func(ptr, format string, args ...any) error) ([]string, error) {
	var files []string
	for i, pat := range patterns {
		full := pat
		if !filepath.IsAbs(full) {
			full = filepath.Join(env.BaseDir, pat)
		}
		m, err := filepath.Glob(full)
		if err != nil || len(m) == 0 {
			return nil, bad(fmt.Sprintf("/events/%d", i), "no events file matches %q", pat)
		}
		sort.Strings(m)
		files = append(files, m...)
	}
	return files, nil
}

// recalcReport is the run-file summary of a recalculation: tier counts and
// every agent above normal.
func recalcReport(changes []Change, res IngestResult, at time.Time) evaluation.Report {
	counts := map[Tier]int{}
	for _, c := range changes {
		counts[c.NewTier]++
	}
	rep := evaluation.Report{
		Name:  EvaluationKey,
		Title: fmt.Sprintf("agent_risk: %s at %s (%s, %d new)", diag.Count(len(changes), "agent", "agents"), at.UTC().Format(time.RFC3339), diag.Count(res.Events, "event", "events"), res.New),
		Data:  map[string]any{"ingested": res, "at": at.UTC(), "changes": nonNil(changes)},
	}
	if len(changes) > 0 {
		rep.RunID = EvaluationRun(changes, at).ID
	}
	rep.Lines = append(rep.Lines, fmt.Sprintf("normal %d, elevated %d, high %d, critical %d",
		counts[TierNormal], counts[TierElevated], counts[TierHigh], counts[TierCritical]))
	for _, c := range changes {
		if c.NewTier != TierNormal {
			rep.Lines = append(rep.Lines, fmt.Sprintf("%s/%s (%s): %d %s", c.TenantID, c.AgentID, c.AgentName, c.NewScore, c.NewTier))
		}
	}
	return rep
}

func nonNil(c []Change) []Change {
	if c == nil {
		return []Change{}
	}
	return c
}
