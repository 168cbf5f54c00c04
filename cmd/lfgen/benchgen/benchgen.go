// Package benchgen generates large synthetic projects for lf's benchmarks:
// many risk scorers over many evaluation keys with a long run history.
package benchgen

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// Size is the shape of a generated project.
type Size struct {
	Scorers        int // risk scorers
	EvaluationKeys int // evaluation keys
	RunsPerKey     int // runs of each evaluation key (history)
	ValuesPerRun   int // metric values per run: tasks x scorer keys x 10 metrics
	AllLatestShare int // one scorer in AllLatestShare has scope all_latest (0: none)
	// Frameworks of Requirements requirements each, evidenced by the
	// scorers (FrameworksYAML; 0: none).
	Frameworks, Requirements int
}

// Full is the size the issue asks for: 1,000 risk scorers, 100 evaluation
// keys with 100 runs each and 1,000 metric values per run (10 million values).
var Full = Size{Scorers: 1000, EvaluationKeys: 100, RunsPerKey: 100, ValuesPerRun: 1000, AllLatestShare: 10}

const metrics = 10

// EntitiesYAML returns a methodologies-and-scorers file for size s.
func EntitiesYAML(s Size, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	b.WriteString("risk_scoring_methodologies:\n")
	b.WriteString(`  - key: perf
    display_name: Performance risk
    function: (1 - value) * impact * reach
    config_spec:
      - {key: impact, type: float, default_value: 5.0, min: 0, max: 10}
      - {key: reach, type: categorical, default_value: internal, allowed_values: [internal, external], values_mapping: {internal: 0.5, external: 1.0}}
`)
	b.WriteString("risk_scorers:\n")
	for i := 0; i < s.Scorers; i++ {
		scope := "all_latest"
		if s.AllLatestShare == 0 || i%s.AllLatestShare != 0 {
			var keys []string
			for j := 0; j < 3; j++ {
				keys = append(keys, fmt.Sprintf("eval-%03d", r.Intn(s.EvaluationKeys)))
			}
			scope = "{evaluation_keys: [" + strings.Join(keys, ", ") + "]}"
		}
		reach := []string{"internal", "external"}[i%2]
		agg := []string{"mean", "max", "min"}[i%3]
		fmt.Fprintf(&b, "  - {key: scorer-%04d, display_name: Scorer %d, domain: domain-%d, risk_scoring_methodology_key: perf, scope: %s, config: {impact: %d.0, reach: %s}, metric: m%d, aggregation: %s}\n",
			i, i, i%7, scope, 1+i%10, reach, i%metrics, agg)
	}
	return b.String()
}

// WriteProject writes a project into dir (lf.yaml, entities.yaml and, with
// frameworks, frameworks.yaml), stores its entities in its store
// (.lf/lf.db) and fills it with the run history.
func WriteProject(ctx context.Context, dir string, s Size, seed int64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "lf.yaml"), []byte("name: bench\n"), 0o644); err != nil {
		return err
	}
	ents := filepath.Join(dir, "entities.yaml")
	if err := os.WriteFile(ents, []byte(EntitiesYAML(s, seed)), 0o644); err != nil {
		return err
	}
	files := []string{ents}
	if s.Frameworks > 0 {
		fws := filepath.Join(dir, "frameworks.yaml")
		if err := os.WriteFile(fws, []byte(FrameworksYAML(s, s.Frameworks, s.Requirements, seed)), 0o644); err != nil {
			return err
		}
		files = append(files, fws)
	}
	app, err := project.App(dir)
	if err != nil {
		return err
	}
	opened, err := store.Open(ctx, filepath.Join(dir, project.StoreRel))
	if err != nil {
		return err
	}
	defer opened.Close()
	st, err := opened.UseApp(ctx, app)
	if err != nil {
		return err
	}
	b, diags := project.LoadEntityFiles(dir, files, nil, nil)
	if diags.HasErrors() {
		return fmt.Errorf("generated entities are invalid: %v", diags[0])
	}
	if ds := b.Check(nil); ds.HasErrors() {
		return fmt.Errorf("generated entities are invalid: %v", ds[0])
	}
	if _, err := project.Upsert(ctx, st, b); err != nil {
		return err
	}
	return WriteRuns(ctx, st, s, seed)
}

// WriteRuns writes the run history of size s straight into the store, one
// transaction per evaluation key.
func WriteRuns(ctx context.Context, st *store.Store, s Size, seed int64) error {
	r := rand.New(rand.NewSource(seed))
	tasks := s.ValuesPerRun / (metrics * 10)
	if tasks < 1 {
		tasks = 1
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := 0; k < s.EvaluationKeys; k++ {
		key := fmt.Sprintf("eval-%03d", k)
		err := st.Update(ctx, func(tx store.Tx) error {
			bulk, err := tx.BulkRuns(ctx, key)
			if err != nil {
				return err
			}
			for i := 0; i < s.RunsPerKey; i++ {
				id := fmt.Sprintf("run-%04d", i)
				if err := bulk.Run(ctx, id, base.Add(time.Duration(i)*time.Hour)); err != nil {
					return err
				}
				n := 0
				for t := 0; t < tasks && n < s.ValuesPerRun; t++ {
					for sc := 0; sc < 10 && n < s.ValuesPerRun; sc++ {
						for m := 0; m < metrics && n < s.ValuesPerRun; m++ {
							if err := bulk.Value(ctx, id, fmt.Sprintf("task-%02d", t), fmt.Sprintf("scorer-%d", sc), fmt.Sprintf("m%d", m), r.Float64()); err != nil {
								return err
							}
							n++
						}
					}
				}
			}
			return bulk.Close(ctx)
		})
		if err != nil {
			return fmt.Errorf("runs of %s: %w", key, err)
		}
	}
	return nil
}

// WriteFiles writes n small entity files (one methodology and one risk
// scorer each) into dir, for the validate benchmark.
func WriteFiles(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "lf.yaml"), []byte("name: files\n"), 0o644); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		content := fmt.Sprintf(`# file %d
risk_scoring_methodologies:
  - key: m-%04d
    display_name: Methodology %d
    function: (1 - accuracy) * impact
    metric_key: accuracy
    config_spec:
      - {key: impact, type: float, default_value: 5.0, min: 0, max: 10}
risk_scorers:
  - key: s-%04d
    display_name: Scorer %d
    domain: quality
    risk_scoring_methodology_key: m-%04d
    scope:
      evaluation_keys: [eval-%d]
    config:
      impact: %d.0
    metric: accuracy
    aggregation: mean
`, i, i, i, i, i, i, i%100, i%10)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("entities-%04d.yaml", i)), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
