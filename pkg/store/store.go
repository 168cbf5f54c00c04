// Package store is lf's embedded store: a SQLite database (pure Go, no cgo)
// holding entities, evaluation runs and the data of the evaluations.
//
// Every write happens in one transaction and the database runs in WAL mode,
// so a crash or kill leaves it as it was before or after a command, never
// half-written.
package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed schema/*.sql
var schemaFS embed.FS

// Store is an open lf store.
type Store struct {
	DB   *sql.DB
	Path string

	valuesOnce sync.Once // the prepared statement scoring reads values with
	valuesStmt *sql.Stmt
	valuesErr  error
}

// Open opens (creating if needed) the store at url: a file path, "sqlite:PATH",
// "sqlite://PATH", or ":memory:" for a private in-memory store.
func Open(ctx context.Context, url string) (*Store, error) {
	path := url
	for _, p := range []string{"sqlite://", "sqlite:", "file:"} {
		if strings.HasPrefix(path, p) {
			path = strings.TrimPrefix(path, p)
			break
		}
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		return nil, fmt.Errorf("store: empty path in %q", url)
	}
	var dsn string
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	if path == ":memory:" {
		dsn = "file::memory:?" + pragmas
	} else {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		dsn = "file:" + path + "?" + pragmas + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if path == ":memory:" {
		// Each connection would get its own empty database.
		db.SetMaxOpenConns(1)
	}
	s := &Store{DB: db, Path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error {
	if s.valuesStmt != nil {
		s.valuesStmt.Close()
	}
	return s.DB.Close()
}

// migrate applies the embedded schema files in name order. They are written
// to be idempotent (CREATE ... IF NOT EXISTS).
func (s *Store) migrate(ctx context.Context) error {
	entries, err := schemaFS.ReadDir("schema")
	if err != nil {
		return fmt.Errorf("store: schema: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return s.Tx(ctx, func(tx *sql.Tx) error {
		for _, n := range names {
			b, err := schemaFS.ReadFile("schema/" + n)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(b)); err != nil {
				return fmt.Errorf("store: schema %s: %w", n, err)
			}
		}
		return nil
	})
}

// Tx runs fn in one transaction, committing when it returns nil and rolling
// back otherwise.
func (s *Store) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}
