// Package postgres is lf's team store: the same tables and behaviour as the
// embedded SQLite store (pkg/store/sqlite), on a PostgreSQL server reached
// with jackc/pgx. Several processes (CLI commands, `lf serve` replicas) may
// use one database at once: every write is one transaction, upserts use
// ON CONFLICT, and the writes of one evaluation key's runs are serialised by
// a transaction-scoped advisory lock so the latest-run table stays right.
// Bulk paths (metric values of runs, generated runs) use COPY.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/internal/sqlstore"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// migrationLock is the advisory lock key that serialises migrations of
// processes opening the same database at once.
const migrationLock = 0x6c66_6d69_6772 // "lfmigr"

// xactLockSQL takes the transaction-scoped advisory lock $1 (int8), held
// until the transaction ends.
const xactLockSQL = `SELECT pg_advisory_xact_lock($1)`

// Store is an open PostgreSQL store. The reads and writes whose logic
// SQLite shares come from sqlstore.Store.
type Store struct {
	sqlstore.Store
	Pool *pgxpool.Pool
	loc  string // the URL without its password, for messages
	app  string // the app this handle reads and writes (apps.go)
}

// querier is the pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Open connects to the PostgreSQL database at dsn (a postgres:// URL) and
// applies the migrations. Without create, a database without lf's tables is
// an error wrapping fs.ErrNotExist (commands that only read never create a
// schema). With create it also removes abandoned runs.
func Open(ctx context.Context, dsn string, create bool) (*Store, error) {
	loc := Redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", loc, redactErr(err, dsn))
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "lf"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", loc, redactErr(err, dsn))
	}
	s := newStore(pool, loc, backend.NoApp)
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store %s: connect: %w", loc, redactErr(err, dsn))
	}
	if !create {
		var exists bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
			pool.Close()
			return nil, s.errf("schema", err)
		}
		if !exists {
			pool.Close()
			return nil, fmt.Errorf("store %s: no lf tables in this database: %w", loc, fs.ErrNotExist)
		}
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if create {
		if _, err := s.CollectGarbage(ctx); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return s, nil
}

func newStore(pool *pgxpool.Pool, loc, app string) *Store {
	return &Store{Store: sqlstore.NewStore(pgQuerier{pool}, app, loc), Pool: pool, loc: loc, app: app}
}

// Close closes the connections.
func (s *Store) Close() error {
	s.Pool.Close()
	return nil
}

// Location is the store's URL without its password.
func (s *Store) Location() string { return s.loc }

func (s *Store) errf(what string, err error) error { return sqlstore.Errf(s.loc, what, err) }

// Migrations lists the embedded migration versions in the order they apply.
func Migrations() []string {
	entries, _ := schemaFS.ReadDir("schema")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".sql"))
	}
	sort.Strings(out)
	return out
}

// Applied lists the migration versions recorded in the database.
func (s *Store) Applied(ctx context.Context) ([]string, error) {
	rows, err := s.Pool.Query(ctx, sqlstore.AppliedMigrations.Postgres())
	if err != nil {
		return nil, s.errf("schema", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.errf("schema", err)
	}
	return out, nil
}

// migrate applies the embedded schema files in name order, each once, under
// an advisory lock (processes opening a fresh database at the same time
// would otherwise race to create the same tables). The versions are those
// of the SQLite store.
func (s *Store) migrate(ctx context.Context) error {
	versions := Migrations()
	// Nearly every open finds everything applied: check without a lock.
	if done, err := s.Applied(ctx); err == nil && len(done) >= len(versions) {
		have := map[string]bool{}
		for _, v := range done {
			have[v] = true
		}
		all := true
		for _, v := range versions {
			all = all && have[v]
		}
		if all {
			return nil
		}
	}
	return s.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, xactLockSQL, int64(migrationLock)); err != nil {
			return s.errf("schema", err)
		}
		if _, err := tx.Exec(ctx, sqlstore.MigrationsTable.Postgres()); err != nil {
			return s.errf("schema", err)
		}
		rows, err := tx.Query(ctx, sqlstore.MigrationVersions.Postgres())
		if err != nil {
			return s.errf("schema", err)
		}
		done, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return s.errf("schema", err)
		}
		applied := map[string]bool{}
		for _, v := range done {
			applied[v] = true
		}
		for _, v := range versions {
			if applied[v] {
				continue
			}
			b, err := schemaFS.ReadFile("schema/" + v + ".sql")
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(b)); err != nil {
				return s.errf("schema "+v, err)
			}
			if _, err := tx.Exec(ctx, sqlstore.RecordMigration.Postgres(),
				v, backend.FormatTime(time.Now())); err != nil {
				return s.errf("schema "+v, err)
			}
		}
		return nil
	})
}

// withTx runs fn in one transaction, committing when it returns nil and
// rolling back otherwise.
func (s *Store) withTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		return s.errf("begin", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return s.errf("commit", err)
	}
	return nil
}

// Redact returns a postgres:// URL with its password replaced by ***, for
// messages; anything unparsable is not shown at all.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		return strings.Replace(u.String(), ":xxxxx@", ":***@", 1)
	}
	return u.String()
}

// redactErr keeps a password in dsn out of an error's text (pgx's parse
// errors quote the connection string).
func redactErr(err error, dsn string) error {
	u, perr := url.Parse(dsn)
	if perr != nil {
		return errors.New("invalid PostgreSQL URL")
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), pw, "***"))
}
