package store

import (
	"context"
	"errors"

	"github.com/lfcli/lf/pkg/store/backend"
)

// AppInfo is one app of a store and what it holds.
type AppInfo = backend.AppInfo

// NoApp is the app of rows written before stores held many apps.
const NoApp = backend.NoApp

// ErrAppExists is what RenameApp fails with when the target app holds rows.
var ErrAppExists = backend.ErrAppExists

// UseApp returns the store scoped to app: every entity, run and score it
// reads or writes is app's. A store written before apps holds its rows in
// NoApp; the first UseApp for an app with no rows of its own adopts them,
// so a single-project store keeps working unchanged (docs/store.md).
func (s *Store) UseApp(ctx context.Context, app string) (*Store, error) {
	b := s.Backend.ForApp(app)
	if app != NoApp {
		if _, err := b.RenameApp(ctx, NoApp, app); err != nil && !errors.Is(err, ErrAppExists) {
			return nil, err
		}
	}
	return &Store{Backend: b, Path: s.Path, db: s.db}, nil
}
