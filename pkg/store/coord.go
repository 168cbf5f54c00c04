package store

import "github.com/lfcli/lf/pkg/store/backend"

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
