package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
	"github.com/lfcli/lf/pkg/store/storetest"
)

// TestSQLiteConformance runs the backend conformance suite on SQLite.
func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) backend.Backend {
		return open(t, filepath.Join(t.TempDir(), "lf.db"))
	})
}

// TestPostgresConformance runs the same suite on PostgreSQL, each case in a
// fresh database of the LF_TEST_POSTGRES server (skipped without it, failed
// without it when CI=true).
func TestPostgresConformance(t *testing.T) {
	pgtest.ServerDSN(t)
	storetest.Run(t, func(t *testing.T) backend.Backend {
		return open(t, pgtest.New(t))
	})
}

func open(t *testing.T, url string) backend.Backend {
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return st.Backend
}
