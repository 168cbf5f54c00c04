package agentrisk

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// cacheSequence runs the same mix of writes on two engines of one store:
// requests from either writer, a baseline reset by the other, and ingests
// that roll back after folding (their aggregates written, then undone).
func cacheSequence(t *testing.T, a, b *Engine) {
	t.Helper()
	ctx := context.Background()
	hour := time.Now().UTC().Truncate(time.Hour)
	for k := 0; k < 12; k++ {
		evs := requestEvents(hour, k, 300)
		switch k % 4 {
		case 1:
			mustIngest(t, b, evs) // the other writer changes a's cached agents
		case 2:
			failIngest(t, a, evs) // rolled back: nothing of it may stay cached
			mustIngest(t, a, evs)
		default:
			mustIngest(t, a, evs)
		}
		if k == 5 {
			if err := b.ResetBaseline(ctx, "acme", "agent-3", hour.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// failIngest is Engine.ingestEvents up to the end of its transaction, which
// then fails.
func failIngest(t *testing.T, e *Engine, evs []Event) {
	t.Helper()
	ctx := context.Background()
	errBoom := errors.New("boom")
	err := e.st.Update(ctx, func(tx store.Tx) error {
		in, err := newIngester(ctx, tx, &e.hours)
		if err != nil {
			return err
		}
		defer in.close()
		in.keep, in.expect = true, len(evs)
		in.aggs, in.cached = &e.aggs, map[agentKey]*cachedAgg{}
		for i := range evs {
			if err := in.add(&evs[i]); err != nil {
				return err
			}
		}
		if _, err := in.finish(); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("failing ingest: %v", err)
	}
}

// TestAggCacheMatchesDecoding checks that the engine's cache of decoded
// aggregates changes no stored byte: the same writes with the cache and
// without it (every stored aggregate decoded) leave the same rows, on both
// backends, with another writer and a baseline reset in between and ingests
// that roll back.
func TestAggCacheMatchesDecoding(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			a, b := twoWriters(t, backend)
			cacheSequence(t, a, b)
			if len(a.aggs.aggs) == 0 {
				t.Fatal("nothing cached")
			}
			cached := aggRows(t, a)

			defer func(n int) { maxCachedAggBytes = n }(maxCachedAggBytes)
			maxCachedAggBytes = 0
			c, d := twoWriters(t, backend)
			cacheSequence(t, c, d)
			if len(c.aggs.aggs) != 0 {
				t.Fatal("cached without room")
			}
			if want := aggRows(t, c); !reflect.DeepEqual(cached, want) {
				t.Fatalf("with the cache the stored rows differ from decoding each one (%d and %d rows)", len(cached), len(want))
			}
		})
	}
}

// TestIngestWrittenDecodedMatchesRow checks that the aggregate IngestWritten
// hands over decoded is the row's, and stays so while later ingests merge
// into the cached one it was copied from.
func TestIngestWrittenDecodedMatchesRow(t *testing.T) {
	ctx := context.Background()
	e := openTest(t)
	hour := time.Now().UTC().Truncate(time.Hour)
	var all []Written
	for k := 0; k < 4; k++ {
		_, rows, err := e.IngestWritten(ctx, requestEvents(hour, k, 300))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
	}
	for _, w := range all {
		if w.ent == nil {
			t.Fatalf("%s: no decoded aggregate handed over", w.AgentID)
		}
		if got := w.ent.a.encode(); string(got) != string(w.Agg) {
			t.Fatalf("%s: the aggregate handed over encodes to %d bytes unlike its row's %d", w.AgentID, len(got), len(w.Agg))
		}
	}
}
