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
