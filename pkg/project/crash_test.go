package project_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lfcli/lf/cmd/lfgen/benchgen"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/storetest"
)

// TestKillDuringAddLeavesStoreWhole kills a process in the middle of a large
// upsert and checks that the store holds all of it or none of it.
func TestKillDuringAddLeavesStoreWhole(t *testing.T) {
	if dir := os.Getenv("LF_CRASH_CHILD"); dir != "" {
		ctx := context.Background()
		st, err := store.Open(ctx, filepath.Join(dir, "lf.db"))
		if err != nil {
			t.Fatal(err)
		}
		b, diags := project.LoadEntityFiles(dir, []string{filepath.Join(dir, "entities.yaml")}, nil, nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		os.WriteFile(filepath.Join(dir, "loaded"), nil, 0o644)
		for {
			// Keep rewriting the whole batch until killed.
			for _, e := range b.Entities {
				e.YAML += "#\n"
			}
			if _, err := project.Upsert(ctx, st, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	t.Parallel() // mostly waits on its child: runs beside the other tests
	dir := t.TempDir()
	s := benchgen.Full
	s.Scorers = 3000
	if err := os.WriteFile(filepath.Join(dir, "entities.yaml"), []byte(benchgen.EntitiesYAML(s, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		os.Remove(filepath.Join(dir, "loaded"))
		cmd := exec.Command(os.Args[0], "-test.run=TestKillDuringAddLeavesStoreWhole")
		cmd.Env = append(os.Environ(), "LF_CRASH_CHILD="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(dir, "loaded")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Duration(150+round*170) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()

		ctx := context.Background()
		st, err := store.Open(ctx, filepath.Join(dir, "lf.db"))
		if err != nil {
			t.Fatal(err)
		}
		var n, distinct int
		if err := storetest.SQLiteFile(t, st.Path).QueryRow(`SELECT count(*), count(DISTINCT length(yaml) - length(replace(yaml, '#', ''))) FROM entities WHERE kind = 'risk-scorer'`).Scan(&n, &distinct); err != nil {
			t.Fatal(err)
		}
		st.Close()
		// Every scorer was rewritten by the same transactions: all carry the
		// same number of markers, or none exists yet.
		if n != 0 && (n != s.Scorers || distinct != 1) {
			t.Fatalf("round %d: half-written store: %d scorers, %d different versions", round, n, distinct)
		}
		t.Logf("round %d: %d scorers, consistent", round, n)
	}
}
