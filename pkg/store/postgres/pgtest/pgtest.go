// Package pgtest gives tests a throw-away PostgreSQL database.
//
// Tests on this machine share one PostgreSQL server, named by the server DSN
// in LF_TEST_POSTGRES (for example
// postgres://lf:lf@127.0.0.1:5432/lf_test?sslmode=disable). New creates a
// fresh database on that server for one test and drops it when the test
// ends, so tests running at the same time never see each other's tables.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/postgres"
)

// EnvVar names the server DSN the helper creates databases from.
const EnvVar = "LF_TEST_POSTGRES"

// HowToStart is the message a test skips with when EnvVar is unset.
const HowToStart = EnvVar + " is not set: PostgreSQL tests skipped. To run them, start a server " +
	"(Debian: pg_ctlcluster 15 main start; then as user postgres: psql -c \"CREATE ROLE lf LOGIN SUPERUSER PASSWORD 'lf'\" " +
	"-c 'CREATE DATABASE lf_test OWNER lf') and set " +
	EnvVar + "=postgres://lf:lf@127.0.0.1:5432/lf_test?sslmode=disable; .ci/run does all of it"

// ServerDSN returns the server DSN from the environment. It skips the test
// when the variable is unset, and fails it instead when CI=true.
func ServerDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvVar)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(EnvVar + " is not set but CI=true: CI must run the PostgreSQL tests (.ci/run starts the server)")
		}
		t.Skip(HowToStart)
	}
	return dsn
}

// New creates an empty database on the LF_TEST_POSTGRES server and returns
// its DSN. The database is dropped (connections closed first) when the test
// and its subtests end.
func New(t testing.TB) string {
	t.Helper()
	dsn, drop, err := Create(context.Background(), ServerDSN(t))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return dsn
}

// Create creates an empty database on the server named by the server DSN
// and returns its DSN and the function that drops it, for callers without a
// testing.TB (testscript set-up).
func Create(ctx context.Context, server string) (dsn string, drop func() error, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", nil, fmt.Errorf("connecting to %s: %w", Redact(server), err)
	}
	defer conn.Close(context.Background())
	name := "lft_" + randomHex(8)
	if dsn, err = WithDatabase(server, name); err != nil {
		return "", nil, err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", nil, fmt.Errorf("creating database %s: %w", name, err)
	}
	return dsn, func() error { return dropDB(server, name) }, nil
}

func dropDB(server, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("dropping database %s: %w", name, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("dropping database %s: %w", name, err)
	}
	return nil
}

// WithDatabase returns dsn (URL form) naming database name instead.
func WithDatabase(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("%s must be a postgres:// URL, got %q", EnvVar, Redact(dsn))
	}
	u.Path = "/" + name
	return u.String(), nil
}

// Redact returns dsn with any password replaced, for messages.
func Redact(dsn string) string { return postgres.Redact(dsn) }

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}
