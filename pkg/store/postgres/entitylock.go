package postgres

import (
	"context"
	"fmt"
)

// lockEntities takes, once per transaction, the advisory lock of the app's
// methodologies and risk scorers. PostgreSQL runs transactions at READ
// COMMITTED, so two writers could each check references before the other
// commits (one deleting a methodology, one adding a risk scorer that uses
// it) and both commit; holding this lock from their first entity write,
// the second writer's reference check, made after its writes, sees the
// first one's commit. (SQLite's write transactions are serialised whole.)
func (t *Tx) lockEntities(ctx context.Context) error {
	if t.entitiesLocked {
		return nil
	}
	if _, err := t.tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('lf.entities/' || $1, 0))`, t.st.app); err != nil {
		return fmt.Errorf("store: lock entities: %w", err)
	}
	t.entitiesLocked = true
	return nil
}
