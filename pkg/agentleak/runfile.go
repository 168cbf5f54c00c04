package agentleak

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/runfile"
)

func init() {
	runfile.Register("agentleak", runEvaluation)
	// `lf validate` checks AgentLeak files the way a scan reads them:
	// schema, unknown-key warnings, regular expressions, vault values.
	project.RegisterChecker("agentleak-config", func(file string, data []byte) diag.List {
		_, ds, _ := ParseConfig(file, data)
		return ds
	})
	project.RegisterChecker("vaults", func(file string, data []byte) diag.List {
		_, ds := ParseVaults(file, data)
		return ds
	})
}

// RunSpec is the `agentleak:` entry of a run file's evaluations; paths are
// relative to the run file.
type RunSpec struct {
	EvaluationKey string   `json:"evaluation_key"`
	Config        string   `json:"config"`
	Vaults        []string `json:"vaults"`
	Traces        []string `json:"traces"`
}

func runEvaluation(ctx context.Context, env runfile.Env, raw json.RawMessage) (runfile.Report, error) {
	var spec RunSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return runfile.Report{}, diag.Invalid(diag.List{{File: env.RunFile, Pointer: env.Pointer, Msg: err.Error()}})
	}
	rel := func(p string) string { return project.Rel(env.ProjectDir, p) }
	at := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(env.BaseDir, p)
	}
	cfg := DefaultConfig()
	var lines []string
	if spec.Config != "" {
		c, warns, err := LoadConfig(at(spec.Config), rel(at(spec.Config)))
		for _, w := range warns.Warnings() {
			lines = append(lines, w.String())
		}
		if err != nil {
			return runfile.Report{}, err
		}
		cfg = c
	}
	var vaults *Vaults
	if len(spec.Vaults) > 0 {
		var paths, displays []string
		for _, v := range spec.Vaults {
			ps, err := ExpandVaultPaths(at(v))
			if err != nil {
				return runfile.Report{}, err
			}
			for _, p := range ps {
				paths = append(paths, p)
				displays = append(displays, rel(p))
			}
		}
		vs, _, err := LoadVaults(paths, displays)
		if err != nil {
			return runfile.Report{}, err
		}
		vaults = vs
	}
	var args []string
	for _, t := range spec.Traces {
		args = append(args, at(t))
	}
	inputs, err := ExpandInputs(args, nil, rel)
	if err != nil {
		return runfile.Report{}, err
	}
	key := spec.EvaluationKey
	if key == "" {
		key = cfg.ProjectName
	}
	if key == "" {
		key = DefaultEvaluationKey
	}
	verdicts := map[string]int{}
	var blocked []string
	rec, err := env.Store.BeginRun(ctx, RunHead(key, env.Now, inputs))
	if err != nil {
		return runfile.Report{}, diag.Internal(err)
	}
	var keys TaskKeys
	job := &Job{Scanner: NewScanner(cfg, vaults), Workers: runtime.GOMAXPROCS(0), OnResult: func(r *Result) error {
		verdicts[r.Verdict]++
		if r.Blocked {
			blocked = append(blocked, r.ScenarioID)
		}
		return rec.Add(ctx, ResultOf(keys.Next(r.ScenarioID, r.RunID), r))
	}}
	sum, err := job.Run(ctx, inputs)
	if err != nil {
		if aerr := rec.Abort(ctx); aerr != nil {
			return runfile.Report{}, diag.Internal(aerr)
		}
		return runfile.Report{}, err
	}
	if err := rec.Finish(ctx, "completed"); err != nil {
		return runfile.Report{}, diag.Internal(err)
	}
	var vs []string
	for _, v := range []string{VerdictPass, VerdictConditional, VerdictHighRisk, VerdictFail} {
		if verdicts[v] > 0 {
			vs = append(vs, fmt.Sprintf("%d %s", verdicts[v], v))
		}
	}
	lines = append(lines, "verdicts: "+strings.Join(vs, ", "))
	if len(blocked) > 0 {
		sort.Strings(blocked)
		lines = append(lines, fmt.Sprintf("blocked: %d (%s)", len(blocked), strings.Join(blocked, ", ")))
	}
	lines = append(lines, "recorded as run "+rec.ID())
	return runfile.Report{
		Title:   fmt.Sprintf("agentleak %s: %d trace%s scanned", key, sum.Traces, map[bool]string{true: "", false: "s"}[sum.Traces == 1]),
		Lines:   lines,
		Blocked: len(blocked) > 0,
	}, nil
}
