package project_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// historyBenchStore opens the project LF_HISTORY_BENCH names (made by
// `go run ./cmd/lfgen project -dir DIR`, opened once by lf so that its rows
// belong to the app named after DIR), or skips.
func historyBenchStore(b *testing.B) *store.Store {
	dir := os.Getenv("LF_HISTORY_BENCH")
	if dir == "" {
		b.Skip("LF_HISTORY_BENCH is not set: point it at a project made by `go run ./cmd/lfgen project -dir DIR`")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, project.StoreRel))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	app, err := st.UseApp(ctx, filepath.Base(dir))
	if err != nil {
		b.Fatal(err)
	}
	return app
}

// BenchmarkOverviewNowVsAt scores every scorer now and as of the middle of
// the history (--at must stay within 1.5x of now).
func BenchmarkOverviewNowVsAt(b *testing.B) {
	st := historyBenchStore(b)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		at   time.Time
	}{{"now", time.Time{}}, {"at", time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := project.Overview(ctx, st, project.OverviewFilter{At: tc.at}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHistoryOne is the history of one scorer over three evaluation
// keys (LF_HISTORY_KEY, default scorer-0001) and of one all_latest scorer
// (scorer-0000).
func BenchmarkHistoryOne(b *testing.B) {
	st := historyBenchStore(b)
	ctx := context.Background()
	for _, key := range []string{"scorer-0001", "scorer-0000"} {
		b.Run(key, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := project.Histories(ctx, st, project.OverviewFilter{Keys: []string{key}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHistoryAll is every scorer's history (lf history risk-scorer
// --all without the output). The first iteration keeps the partials the
// store misses; later ones read them.
func BenchmarkHistoryAll(b *testing.B) {
	st := historyBenchStore(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if _, err := project.Histories(ctx, st, project.OverviewFilter{}); err != nil {
			b.Fatal(err)
		}
	}
}
