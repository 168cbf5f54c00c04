package importers

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// Outcomes counts what storing the imported runs did.
type Outcomes struct {
	Created, Updated, Unchanged int
}

// Result is an import stored: the per-file report and the store outcomes.
type Result struct {
	Report
	Outcomes
	PerRun map[string]store.Outcome // "evaluation_key/id" -> its last outcome

	order []store.Outcome // the outcome of every run stored, in the order stored
}

// RunOutcome returns the outcome of run j of Files[i]: a file given twice
// gets its own outcomes (created, then unchanged), so per-file lines agree
// with the counts.
func (r Result) RunOutcome(i, j int) store.Outcome {
	n := j
	for _, f := range r.Files[:i] {
		n += len(f.Runs)
	}
	if n >= len(r.order) {
		return ""
	}
	return r.order[n]
}

// ImportToStore imports paths and upserts every run by (evaluation key, id),
// one transaction per run, through the canonical YAML `lf add` stores: a run
// whose canonical YAML equals the stored one is left alone (unchanged), so
// importing a file twice, or adding its export, changes nothing.
func ImportToStore(ctx context.Context, st *store.Store, format Format, paths []string, opts Options) (Result, error) {
	res := Result{PerRun: map[string]store.Outcome{}}
	var written []model.RunRef // completed runs created or updated, for their risk partials
	rep, err := Import(ctx, format, paths, opts, func(run model.EvaluationRun) error {
		var out store.Outcome
		err := st.Update(ctx, func(tx store.Tx) error {
			var err error
			out, err = tx.PutRunYAML(ctx, run, project.RunYAML(&run))
			return err
		})
		if err != nil {
			return err
		}
		res.PerRun[run.EvaluationKey+"/"+run.ID] = out
		if out != store.Unchanged && run.Status == model.StatusCompleted {
			written = append(written, model.RunRef{EvaluationKey: run.EvaluationKey, ID: run.ID})
		}
		res.order = append(res.order, out)
		switch out {
		case store.Created:
			res.Created++
		case store.Updated:
			res.Updated++
		default:
			res.Unchanged++
		}
		return nil
	})
	res.Report = rep
	_ = project.KeepRunPartials(ctx, st, written) // best effort: histories compute what is missing
	return res, err
}

// RunSpec is the `import:` entry of a run file's evaluations; paths are files,
// folders (HELM runs) or globs relative to the run file.
type RunSpec struct {
	Format        string   `json:"format"`
	Paths         []string `json:"paths"`
	EvaluationKey string   `json:"evaluation_key"`
}

// ExpandPaths resolves the paths of a spec against baseDir; a glob must match
// at least one file.
func ExpandPaths(baseDir string, patterns []string) ([]string, error) {
	var out []string
	for _, p := range patterns {
		if p == "-" {
			out = append(out, p)
			continue
		}
		given := p
		if !filepath.IsAbs(p) {
			p = filepath.Join(baseDir, p)
		}
		if !hasMeta(p) {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("bad pattern %q: %w", given, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("paths: %s matches no file", given)
		}
		out = append(out, m...)
	}
	return out, nil
}

func hasMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[':
			return true
		}
	}
	return false
}
