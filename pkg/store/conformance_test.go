package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/storetest"
)

// TestSQLiteConformance runs the backend conformance suite on SQLite.
func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) backend.Backend {
		st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "lf.db"))
		if err != nil {
			t.Fatal(err)
		}
		return st.Backend
	})
}
