package importers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/evaluation"
	"github.com/lfcli/lf/pkg/store"
)

// EvaluationName is the name of the import evaluation in run files.
const EvaluationName = "import"

// Evaluation is the import evaluation of run files (listed in
// pkg/runfile/evaluations.go).
var Evaluation = evaluation.Evaluation{Name: EvaluationName, Run: runEvaluation}

func runEvaluation(ctx context.Context, env evaluation.Env, spec json.RawMessage, st *store.Store) (evaluation.Report, error) {
	title, lines, err := RunFileImport(ctx, st, env.ProjectDir, env.BaseDir, env.RunFile, env.Pointer, spec)
	return evaluation.Report{Name: EvaluationName, Title: title, Lines: lines}, err
}

// RunFileImport is the import evaluation of a run file,
// `evaluations: - import: {format: promptfoo, paths: [results/*.json]}`: it
// imports the files (paths relative to baseDir) and stores their runs, so
// lf run imports and scores in one step. Bad specs and files that cannot be
// imported are diag errors located at runFile and pointer.
func RunFileImport(ctx context.Context, st *store.Store, projectDir, baseDir, runFile, pointer string, raw json.RawMessage) (title string, lines []string, err error) {
	bad := func(format string, args ...any) error {
		return diag.Invalid(diag.List{{File: runFile, Pointer: pointer, Msg: fmt.Sprintf(format, args...)}})
	}
	var spec RunSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return "", nil, bad("%v", err)
	}
	var format Format
	if spec.Format != "" {
		f, err := ParseFormat(spec.Format)
		if err != nil {
			return "", nil, bad("%v", err)
		}
		format = f
	}
	if len(spec.Paths) == 0 {
		return "", nil, bad("paths: give at least one result file")
	}
	paths, err := ExpandPaths(baseDir, spec.Paths)
	if err != nil {
		return "", nil, bad("%v", err)
	}
	res, err := ImportToStore(ctx, st, format, paths, Options{EvaluationKey: spec.EvaluationKey})
	if err != nil {
		return "", nil, diag.Internal(err)
	}
	var errs diag.List
	for i, f := range res.Files {
		for _, d := range f.Diagnostics {
			d.File = diag.Rel(projectDir, d.File)
			if d.Severity == diag.SevError {
				errs = append(errs, d)
			} else {
				lines = append(lines, d.String())
			}
		}
		for j, r := range f.Runs {
			lines = append(lines, fmt.Sprintf("%s %s/%s (%s, %s)", res.RunOutcome(i, j), r.EvaluationKey, r.ID, f.Format, diag.Count(r.Results, "result", "results")))
		}
	}
	if len(errs) > 0 {
		return "", nil, diag.Invalid(errs)
	}
	title = fmt.Sprintf("import: %s, %s (%d created, %d updated, %d unchanged)",
		diag.Count(len(res.Files), "file", "files"), diag.Count(res.Runs(), "run", "runs"), res.Created, res.Updated, res.Unchanged)
	return title, lines, nil
}
