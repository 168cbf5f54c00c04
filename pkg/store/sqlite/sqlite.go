// Package sqlite is lf's embedded store: a SQLite database (pure Go, no cgo)
// holding entities, evaluation runs and the data of the evaluations.
//
// Every write happens in one transaction and the database runs in WAL mode,
// so a crash or kill leaves it as it was before or after a command, never
// half-written.
package sqlite

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
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// Store is an open SQLite store. The reads and writes whose logic
// PostgreSQL shares come from sqlstore.Store.
type Store struct {
	sqlstore.Store
	DB   *sql.DB
	Path string
	app  string // the app this handle reads and writes (apps.go)

	valuesOnce sync.Once // the prepared statement scoring reads values with
	valuesStmt *sql.Stmt
	valuesErr  error
}

// Open opens the SQLite store at path (":memory:" for a private in-memory
// store), creating the file when create is set; without create, a missing
// file is an error wrapping fs.ErrNotExist. It applies the migrations and,
// when create is set, removes abandoned runs.
func Open(ctx context.Context, path string, create bool) (*Store, error) {
	var dsn string
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	if path == ":memory:" {
		dsn = "file::memory:?" + pragmas
	} else {
		if _, err := os.Stat(path); err != nil && !create {
			return nil, fmt.Errorf("store %s: %w", path, err)
		}
		if create {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, fmt.Errorf("store %s: %w", path, err)
			}
		}
		dsn = "file:" + path + "?" + pragmas + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: open: %w", path, err)
	}
	if path == ":memory:" {
		// Each connection would get its own empty database.
		db.SetMaxOpenConns(1)
	}
	s := newStore(db, path, backend.NoApp)
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if create {
		// The next writer cleans up after writers that died mid-run.
		if _, err := s.CollectGarbage(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

func newStore(db *sql.DB, path, app string) *Store {
	return &Store{Store: sqlstore.NewStore(dbQuerier{db}, app, path), DB: db, Path: path, app: app}
}

// Close closes the store.
func (s *Store) Close() error {
	if s.valuesStmt != nil {
		s.valuesStmt.Close()
	}
	return s.DB.Close()
}

// migrate applies the embedded schema files (schema/NN_name.sql) in name
// order, each once: the schema_migrations table records the versions
// applied. The first files predate the table and are idempotent, so a store
// written before versioning takes them again harmlessly.
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
	// Nearly every open finds every version applied: check that with one
	// read, without the write lock the transaction below takes (a reading
	// command neither waits for a writer nor makes one wait).
	if s.applied(ctx, names) {
		return nil
	}
	return s.withTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, sqlstore.MigrationsTable.SQLite()); err != nil {
			return fmt.Errorf("store %s: schema: %w", s.Path, err)
		}
		applied := map[string]bool{}
		rows, err := tx.QueryContext(ctx, sqlstore.MigrationVersions.SQLite())
		if err != nil {
			return fmt.Errorf("store %s: schema: %w", s.Path, err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return fmt.Errorf("store %s: schema: %w", s.Path, err)
			}
			applied[v] = true
		}
		rows.Close()
		for _, n := range names {
			version := strings.TrimSuffix(n, ".sql")
			if applied[version] {
				continue
			}
			b, err := schemaFS.ReadFile("schema/" + n)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(b)); err != nil {
				return fmt.Errorf("store %s: schema %s: %w", s.Path, n, err)
			}
			if _, err := tx.ExecContext(ctx, sqlstore.RecordMigration.SQLite(),
				version, backend.FormatTime(time.Now())); err != nil {
				return fmt.Errorf("store %s: schema %s: %w", s.Path, n, err)
			}
		}
		return nil
	})
}

// applied tells whether every schema file of names is recorded as applied;
// false when that cannot be read (no schema_migrations table yet, a busy
// database), which the migration transaction then settles.
func (s *Store) applied(ctx context.Context, names []string) bool {
	rows, err := s.DB.QueryContext(ctx, sqlstore.MigrationVersions.SQLite())
	if err != nil {
		return false
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var v string
		if rows.Scan(&v) != nil {
			return false
		}
		have[v] = true
	}
	if rows.Err() != nil {
		return false
	}
	for _, n := range names {
		if !have[strings.TrimSuffix(n, ".sql")] {
			return false
		}
	}
	return true
}

// withTx runs fn in one transaction, committing when it returns nil and rolling
// back otherwise.
func (s *Store) withTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store %s: begin: %w", s.Path, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store %s: commit: %w", s.Path, err)
	}
	return nil
}

// Location is the store's file path.
func (s *Store) Location() string { return s.Path }
