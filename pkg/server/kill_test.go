package server

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/storetest"
)

// TestKilledMidRecalculation kills a process that recalculates in a loop
// and checks that the store opens, passes SQLite's integrity check and can
// be recalculated again: every write is one transaction.
func TestKilledMidRecalculation(t *testing.T) {
	if os.Getenv("LF_KILL_CHILD_STORE") != "" {
		return // the child's work happens in TestKillChild
	}
	t.Parallel() // mostly waits (timeouts, sleeps, a child process): runs beside the other tests
	ctx := context.Background()
	path := t.TempDir() + "/lf.db"
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	evs, d := agentrisk.ParseEvents("events", strings.NewReader(events("t1", 300)+events("t2", 300)))
	if d.HasErrors() {
		t.Fatal(d)
	}
	if _, err := agentrisk.NewEngine(st).Ingest(ctx, evs); err != nil {
		t.Fatal(err)
	}
	st.Close()

	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$")
		cmd.Env = append(os.Environ(), "LF_KILL_CHILD_STORE="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(300+150*round) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()

		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("round %d: store does not open after kill: %v", round, err)
		}
		var res string
		if err := storetest.SQLiteFile(t, path).QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
			t.Fatalf("round %d: integrity_check = %q, %v", round, res, err)
		}
		ch, err := agentrisk.NewEngine(st).Recalculate(ctx, "", "", time.Now())
		if err != nil || len(ch) != 4 {
			t.Fatalf("round %d: recalculation after kill: %d changes, %v", round, len(ch), err)
		}
		st.Close()
	}
}

// TestKillChild recalculates forever when run as the child of
// TestKilledMidRecalculation.
func TestKillChild(t *testing.T) {
	path := os.Getenv("LF_KILL_CHILD_STORE")
	if path == "" {
		t.Skip("only runs as the child of TestKilledMidRecalculation")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		os.Exit(3)
	}
	e := agentrisk.NewEngine(st)
	for {
		if _, err := e.Recalculate(ctx, "", "", time.Now()); err != nil {
			os.Exit(4)
		}
	}
}
