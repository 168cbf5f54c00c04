package storetest

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// SQLiteFile opens the database file of a SQLite store (path, not
// ":memory:") on a connection of its own, for tests that check or alter the
// file under the store: its integrity, a schema from an older lf, a trigger
// that makes a write fail. The store's own handle does not expose its
// database; this one is closed when the test ends.
func SQLiteFile(t testing.TB, path string) *sql.DB {
	t.Helper()
	if path == "" || path == ":memory:" {
		t.Fatalf("SQLiteFile: %q is not a store file (open the store on a file in t.TempDir())", path)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
