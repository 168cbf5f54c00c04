// Package store is where lf keeps its data, and the only package that talks
// to a database. Open and OpenExisting parse a store URL and open the
// backend it names (pkg/store/sqlite, embedded, the default;
// pkg/store/postgres for a postgres:// URL). The interfaces a backend implements and the value
// types it exchanges are in pkg/store/backend; the conformance suite every
// backend passes is pkg/store/storetest. See docs/store.md.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/postgres"
	"github.com/lfcli/lf/pkg/store/sqlite"
)

// Store is an open store: a backend and where it is.
type Store struct {
	backend.Backend
	Path string // the SQLite file, or the URL (without password) of a PostgreSQL store

	// db is the SQLite database underneath, for the copy between stores
	// (nil for other backends).
	db *sql.DB
}

// The backend's value types and interfaces, under the names domain code
// uses.
type (
	Tx            = backend.Tx
	Outcome       = backend.Outcome
	Entity        = backend.Entity
	RunRow        = backend.RunRow
	AgentRow      = backend.AgentRow
	AgentScoreRow = backend.AgentScoreRow
	HistoryPoint  = backend.HistoryPoint
	TenantBody    = backend.TenantBody
	AlertDelivery = backend.AlertDelivery
	OutboxAlert   = backend.OutboxAlert
	GCResult      = backend.GCResult
	EventIngest   = backend.EventIngest
	LegacyHashes  = backend.LegacyHashes
	ScoreWriter   = backend.ScoreWriter
	AlertStates   = backend.AlertStates
	BulkRuns      = backend.BulkRuns
)

// Upsert outcomes, as `lf add` prints them.
const (
	Created   = backend.Created
	Updated   = backend.Updated
	Unchanged = backend.Unchanged
)

// TimeFormat is how times are stored: RFC 3339 in UTC with fixed-width
// nanoseconds, so that text order is time order.
const TimeFormat = backend.TimeFormat

// AbandonEnv names the test hook that makes a RunWriter's Finish leave its
// run as a killed writer would.
const AbandonEnv = backend.AbandonEnv

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return backend.FormatTime(t) }

// RunWriter streams the results of a run into the store (see BeginRun).
type RunWriter struct{ backend.RunWriter }

// BeginRun records the head of run as running and returns the writer of its
// results; the run stays invisible to scorers until Finish.
func (s *Store) BeginRun(ctx context.Context, run model.EvaluationRun) (*RunWriter, error) {
	w, err := s.Backend.BeginRun(ctx, run)
	if err != nil {
		return nil, err
	}
	return &RunWriter{w}, nil
}

// Open opens (creating if needed) the store at url (see ParseURL). Opening
// for writing also removes abandoned runs.
func Open(ctx context.Context, url string) (*Store, error) {
	return open(ctx, url, true)
}

// OpenExisting opens the store at url without creating it: commands that
// only read use it, so that they never leave a store behind. It returns an
// error wrapping ErrNotExist when there is no store at url.
func OpenExisting(ctx context.Context, url string) (*Store, error) {
	return open(ctx, url, false)
}

func open(ctx context.Context, url string, create bool) (*Store, error) {
	loc, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	if loc.Engine == EnginePostgres {
		st, err := postgres.Open(ctx, url, create)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w at %s (no lf tables yet)", ErrNotExist, postgres.Redact(url))
			}
			return nil, err
		}
		return &Store{Backend: st, Path: st.Location()}, nil
	}
	path := loc.Path
	if path != ":memory:" {
		fi, err := os.Stat(path)
		switch {
		case err == nil && fi.IsDir():
			return nil, fmt.Errorf("%w %q: %s is a folder, not a store file", ErrUsage, url, path)
		case err != nil && !create && errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w at %s", ErrNotExist, path)
		}
	}
	st, err := sqlite.Open(ctx, path, create)
	if err != nil {
		return nil, err
	}
	return &Store{Backend: st, Path: path, db: st.DB}, nil
}
