package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

func TestNewGivesAFreshDatabaseDroppedAtCleanup(t *testing.T) {
	server := pgtest.ServerDSN(t)
	var name string
	t.Run("use", func(t *testing.T) {
		dsn := pgtest.New(t)
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		var tables int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Fatalf("fresh database %s has %d tables", name, tables)
		}
	})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if name == "" || n != 0 {
		t.Fatalf("database %q still exists after cleanup (%d)", name, n)
	}
}

func TestRedactHidesThePassword(t *testing.T) {
	got := pgtest.Redact("postgres://lf:secret@127.0.0.1:5432/x?sslmode=disable")
	if got != "postgres://lf:***@127.0.0.1:5432/x?sslmode=disable" {
		t.Fatalf("Redact = %q", got)
	}
}
