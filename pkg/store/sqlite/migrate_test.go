package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenCurrentStoreTakesNoWriteLock opens an up-to-date store while
// another connection holds its write lock: the open only reads the applied
// versions, so a reading command neither waits for a writer nor fails.
func TestOpenCurrentStoreTakesNoWriteLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lf.db")
	st, err := Open(ctx, path, true)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	writer, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	conn, err := writer.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.ExecContext(ctx, "ROLLBACK") }()

	start := time.Now()
	st, err = Open(ctx, path, false)
	if err != nil {
		t.Fatalf("open while a writer holds the lock: %v", err)
	}
	defer st.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("open waited %s for the writer", d)
	}
	if _, err := st.RiskScorers(ctx); err != nil {
		t.Fatalf("read while a writer holds the lock: %v", err)
	}
}
