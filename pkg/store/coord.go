package store

import (
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/postgres"
)

// Coordination between processes serving one store (see
// backend.Coordinator), under the names domain code uses.
type (
	Coordinator  = backend.Coordinator
	Lock         = backend.Lock
	Listener     = backend.Listener
	Notification = backend.Notification
)

// Coordinator returns the store's coordinator: in-process for SQLite,
// across processes for PostgreSQL. ok is false for a backend without one.
func (s *Store) Coordinator() (c Coordinator, ok bool) {
	c, ok = s.Backend.(backend.Coordinator)
	return c, ok
}

// Shared reports whether other processes may serve this store at the same
// time (PostgreSQL): their rate counters must then be shared through the
// coordinator. A SQLite store is served by one process, which counts alone.
func (s *Store) Shared() bool { return s.db == nil }

// Unavailable tells whether err means the store's server cannot be reached
// right now (PostgreSQL down, restarting or refusing connections) rather
// than a bad request or broken data, with the reason in a few words. Such
// errors end by themselves when the server is back.
func Unavailable(err error) (reason string, ok bool) { return postgres.Unavailable(err) }
