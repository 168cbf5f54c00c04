package importers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/runfile"
)

// EvaluationName is the name of the import evaluation in run files.
const EvaluationName = "import"

func init() { runfile.Register(EvaluationName, runEvaluation) }

// runEvaluation is `evaluations: - import: {format: promptfoo, paths: [results/*.json]}`:
// it imports the files and stores their runs, so lf run imports and scores in one step.
func runEvaluation(ctx context.Context, env runfile.Env, raw json.RawMessage) (runfile.Report, error) {
	bad := func(format string, args ...any) error {
		return diag.Invalid(diag.List{{File: env.RunFile, Pointer: env.Pointer, Msg: fmt.Sprintf(format, args...)}})
	}
	var spec RunSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return runfile.Report{}, bad("%v", err)
	}
	var format Format
	if spec.Format != "" {
		f, err := ParseFormat(spec.Format)
		if err != nil {
			return runfile.Report{}, bad("%v", err)
		}
		format = f
	}
	if len(spec.Paths) == 0 {
		return runfile.Report{}, bad("paths: give at least one result file")
	}
	paths, err := ExpandPaths(env.BaseDir, spec.Paths)
	if err != nil {
		return runfile.Report{}, bad("%v", err)
	}
	res, err := ImportToStore(ctx, env.Store, format, paths, Options{EvaluationKey: spec.EvaluationKey})
	if err != nil {
		return runfile.Report{}, diag.Internal(err)
	}
	var lines []string
	var errs diag.List
	for _, f := range res.Files {
		for _, d := range f.Diagnostics {
			d.File = project.Rel(env.ProjectDir, d.File)
			if d.Severity == diag.SevError {
				errs = append(errs, d)
			} else {
				lines = append(lines, d.String())
			}
		}
		for _, r := range f.Runs {
			lines = append(lines, fmt.Sprintf("%s %s/%s (%s, %d results)", res.PerRun[r.EvaluationKey+"/"+r.ID], r.EvaluationKey, r.ID, f.Format, r.Results))
		}
	}
	if len(errs) > 0 {
		return runfile.Report{}, diag.Invalid(errs)
	}
	return runfile.Report{
		Title: fmt.Sprintf("import: %d file%s, %d run%s (%d created, %d updated, %d unchanged)",
			len(res.Files), plural(len(res.Files)), res.Runs(), plural(res.Runs()), res.Created, res.Updated, res.Unchanged),
		Lines: lines,
	}, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
