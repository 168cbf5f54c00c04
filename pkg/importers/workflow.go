package importers

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/lfcli/lf/pkg/model"
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
	PerRun map[string]store.Outcome // "evaluation_key/id" -> outcome
}

// ImportToStore imports paths and upserts every run by (evaluation key, id),
// one transaction per run: a run equal to the stored one is left alone
// (unchanged), so importing a file twice changes nothing.
func ImportToStore(ctx context.Context, st *store.Store, format Format, paths []string, opts Options) (Result, error) {
	res := Result{PerRun: map[string]store.Outcome{}}
	rep, err := Import(ctx, format, paths, opts, func(run model.EvaluationRun) error {
		var out store.Outcome
		err := st.Tx(ctx, func(tx *sql.Tx) error {
			var err error
			out, err = upsertRun(ctx, tx, run)
			return err
		})
		if err != nil {
			return err
		}
		res.PerRun[run.EvaluationKey+"/"+run.ID] = out
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
	return res, err
}

// upsertRun writes run unless the stored run with its key and id is equal.
func upsertRun(ctx context.Context, tx *sql.Tx, run model.EvaluationRun) (store.Outcome, error) {
	old, err := store.Run(ctx, tx, run.EvaluationKey, run.ID)
	if err != nil {
		return "", err
	}
	if old != nil && sameRun(*old, run) {
		return store.Unchanged, nil
	}
	if err := store.PutRun(ctx, tx, run, ""); err != nil {
		return "", err
	}
	if old == nil {
		return store.Created, nil
	}
	return store.Updated, nil
}

// sameRun compares runs by their canonical JSON (sorted map keys; a stored
// run comes back with its results sorted, as importers write them).
func sameRun(a, b model.EvaluationRun) bool {
	norm := func(r model.EvaluationRun) []byte {
		r.CreatedAt = r.CreatedAt.UTC()
		if len(r.Results) == 0 {
			r.Results = nil
		}
		sort.SliceStable(r.Results, func(i, j int) bool {
			x, y := r.Results[i], r.Results[j]
			if x.TaskSpecificationKey != y.TaskSpecificationKey {
				return x.TaskSpecificationKey < y.TaskSpecificationKey
			}
			return x.ScorerKey < y.ScorerKey
		})
		var v any
		b, _ := json.Marshal(r)
		_ = json.Unmarshal(b, &v) // numbers and maps in one canonical form
		out, _ := json.Marshal(v)
		return out
	}
	return bytes.Equal(norm(a), norm(b))
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
