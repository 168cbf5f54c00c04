package postgres_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/postgres"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

// TestHashChunksMigration checks migration 70 on a database whose hour
// sets were one value per hour (schema 60): each becomes chunk 0 of its
// hour, and the key takes the chunk.
func TestHashChunksMigration(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.New(t)
	st, err := postgres.Open(ctx, dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`ALTER TABLE agentrisk_seen_hours DROP COLUMN chunk`,
		`ALTER TABLE agentrisk_seen_hours ADD PRIMARY KEY (tenant_id, hour)`,
		`INSERT INTO agentrisk_seen_hours (tenant_id, hour, hashes) VALUES ('acme', 100, '\x0102'), ('acme', 101, '\x03')`,
		`DELETE FROM schema_migrations WHERE version LIKE '70_%'`,
	} {
		if _, err := st.Pool.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	st.Close()
	st, err = postgres.Open(ctx, dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.Update(ctx, func(tx backend.Tx) error {
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		b, last, n, err := in.HashChunks(ctx, "acme", 100, -1)
		if err != nil || !bytes.Equal(b, []byte{1, 2}) || last != 0 || n != 1 {
			t.Errorf("hour 100 after migration 70: %v %d %d %v", b, last, n, err)
		}
		// A second chunk of the same hour fits the new key.
		return in.AddHashChunk(ctx, "acme", 100, 1, []byte{4})
	})
	if err != nil {
		t.Fatal(err)
	}
}
