package project_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lfcli/lf/cmd/lfgen/benchgen"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// benchSize is small by default so `go test -bench .` stays quick; set
// LF_BENCH_RUNS=100 (task bench) for the full 10-million-value project.
func benchSize() benchgen.Size {
	s := benchgen.Full
	s.RunsPerKey = 5
	if v, err := strconv.Atoi(os.Getenv("LF_BENCH_RUNS")); err == nil && v > 0 {
		s.RunsPerKey = v
	}
	return s
}

// benchProject generates the project once per size under the temp dir.
func benchProject(b *testing.B, s benchgen.Size) string {
	// The same folders as `task bench`: /tmp/lf-bench (100 runs), /tmp/lf-bench-N.
	dir := filepath.Join(os.TempDir(), "lf-bench-"+strconv.Itoa(s.RunsPerKey))
	if s.RunsPerKey == benchgen.Full.RunsPerKey {
		dir = filepath.Join(os.TempDir(), "lf-bench")
	}
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := benchgen.WriteProject(context.Background(), dir, s, 1); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
	return dir
}

// BenchmarkOverview scores 1,000 risk scorers over 100 evaluation keys; the
// history per key (LF_BENCH_RUNS) must not change the time.
func BenchmarkOverview(b *testing.B) {
	s := benchSize()
	dir := benchProject(b, s)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, project.StoreRel))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ResetTimer()
	var values int
	for i := 0; i < b.N; i++ {
		res, err := project.Overview(ctx, st, project.OverviewFilter{})
		if err != nil {
			b.Fatal(err)
		}
		values = 0
		for _, r := range res {
			values += r.Values
		}
	}
	b.ReportMetric(float64(values), "values/op")
}

// BenchmarkValidate validates 1,000 entity files.
func BenchmarkValidate(b *testing.B) {
	dir := b.TempDir()
	if err := benchgen.WriteFiles(dir, 1000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := project.Validate(dir, nil, nil, nil)
		if res.Diags.HasErrors() || res.Entities != 2000 {
			b.Fatalf("entities %d, diags %v", res.Entities, res.Diags)
		}
	}
}
