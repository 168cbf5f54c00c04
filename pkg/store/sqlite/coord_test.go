package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/store/sqlite"
	"github.com/lfcli/lf/pkg/store/storetest"
)

// Two Stores of one process on one file share the in-process coordinator.
func TestCoordinator(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lf.db")
	open := func() *sqlite.Store {
		st, err := sqlite.Open(context.Background(), path, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	storetest.Coordinator(t, open(), open())
}

// Of two transactions swapping one alert state at once, one claims the
// crossing.
func TestAlertClaim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lf.db")
	var sts [2]*sqlite.Store
	for i := range sts {
		st, err := sqlite.Open(context.Background(), path, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		sts[i] = st
	}
	storetest.AlertClaim(t, sts[0], sts[1])
}
