package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/backend"
)

// putEntity upserts an entity in one statement, so that processes adding
// the same key at once both succeed (one creates, the other updates or
// finds it unchanged). A row comes back only when something was written;
// xmax = 0 tells an insert from an update.
func putEntity(ctx context.Context, tx pgx.Tx, app string, e backend.Entity) (backend.Outcome, error) {
	var inserted bool
	err := tx.QueryRow(ctx, `INSERT INTO entities AS e (app, kind, key, body, yaml, updated_at) VALUES ($6, $1, $2, $3, $4, $5)
		ON CONFLICT (app, kind, key) DO UPDATE SET body = excluded.body, yaml = excluded.yaml, updated_at = excluded.updated_at
		WHERE e.body <> excluded.body OR e.yaml <> excluded.yaml
		RETURNING (xmax = 0)`, string(e.Kind), e.Key, e.Body, e.YAML, backend.FormatTime(time.Now()), app).Scan(&inserted)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return backend.Unchanged, nil
	case err != nil:
		return "", fmt.Errorf("store: put %s %s: %w", e.Kind, e.Key, err)
	case inserted:
		return backend.Created, nil
	}
	return backend.Updated, nil
}
