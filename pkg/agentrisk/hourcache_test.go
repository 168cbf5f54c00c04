package agentrisk

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
	"github.com/lfcli/lf/pkg/store/storetest"
)

// twoWriters opens two engines on one store, as two replicas on one
// PostgreSQL database or lf serve and lf agents ingest on one SQLite file
// are: each keeps its own cache of the open hours' sets.
func twoWriters(t *testing.T, backend string) (a, b *Engine) {
	t.Helper()
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "lf.db")
	if backend == "postgres" {
		loc = pgtest.New(t)
	}
	var es [2]*Engine
	for i := range es {
		st, err := store.Open(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		es[i] = NewEngine(st)
	}
	return es[0], es[1]
}

func mustIngest(t *testing.T, e *Engine, evs []Event) IngestResult {
	t.Helper()
	res, err := e.Ingest(context.Background(), evs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHourCacheSeesOtherWriters checks that an engine's cached set of the
// current hour learns what another writer stored since (new chunks, a
// compaction of them), so that ingest stays idempotent across writers, and
// that the aggregates come out as one ingest of the same events on a fresh
// store makes them.
func TestHourCacheSeesOtherWriters(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			defer func(n int) { maxChunks = n }(maxChunks)
			maxChunks = 3 // compactions within the test
			a, b := twoWriters(t, backend)
			hour := time.Now().UTC().Truncate(time.Hour)
			var all []Event
			for k := 0; k < 8; k++ {
				evs := requestEvents(hour, k, 50)
				all = append(all, evs...)
				w, other := a, b
				if k%3 == 2 {
					w, other = b, a
				}
				if res := mustIngest(t, w, evs); res.New != 50 {
					t.Fatalf("request %d: %+v", k, res)
				}
				// The other writer knows them all, whichever stored them.
				if res := mustIngest(t, other, evs); res.New != 0 || res.Duplicates != 50 {
					t.Fatalf("request %d again on the other writer: %+v", k, res)
				}
			}
			if res := mustIngest(t, a, all); res.New != 0 {
				t.Fatalf("every request again: %+v", res)
			}
			if n := chunkRows(t, a); n > maxChunks {
				t.Errorf("%d chunks in the hour, at most %d", n, maxChunks)
			}
			fresh := openTest(t)
			mustIngest(t, fresh, all)
			if got, want := aggRows(t, a), aggRows(t, fresh); !reflect.DeepEqual(got, want) {
				t.Fatal("aggregates differ from one ingest of the same events")
			}
		})
	}
}

func chunkRows(t *testing.T, e *Engine) int {
	t.Helper()
	n, _ := hourChunks(t, e, "acme", nowHour())
	return n
}

// hourChunks reads, through the store, how many chunks the hash set of a
// tenant's hour has and how many hashes they hold.
func hourChunks(t testing.TB, e *Engine, tenant string, hour int64) (chunks, hashes int) {
	t.Helper()
	err := e.st.Update(context.Background(), func(tx store.Tx) error {
		in, err := tx.EventIngest(context.Background())
		if err != nil {
			return err
		}
		defer in.Close()
		b, _, n, err := in.HashChunks(context.Background(), tenant, hour, -1)
		chunks, hashes = n, len(b)/16
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return chunks, hashes
}

// TestHourCacheRolledBack checks that an ingest that stores nothing (a bad
// line after good events) leaves none of its hashes in the cache: the good
// events are new to the next ingest.
func TestHourCacheRolledBack(t *testing.T) {
	e := openTest(t)
	hour := time.Now().UTC().Truncate(time.Hour)
	mustIngest(t, e, requestEvents(hour, 0, 100)) // the hour is cached
	next := requestEvents(hour, 1, 100)
	res, d, err := e.IngestSources(context.Background(), []Source{{Name: "bad.jsonl", R: strings.NewReader(jsonl(t, next) + "{not json}\n")}})
	if err != nil || !d.HasErrors() || res.New != 0 {
		t.Fatalf("bad input: %+v %v %v", res, d, err)
	}
	if res := mustIngest(t, e, next); res.New != 100 {
		t.Fatalf("events of the rejected ingest, sent again: %+v (want 100 new)", res)
	}
	if res := mustIngest(t, e, next); res.Duplicates != 100 {
		t.Fatalf("and once more: %+v", res)
	}
}

// TestHourCacheFailedAfterWriting checks the same for an ingest that fails
// after it wrote its chunks (here: pruning an old hour fails), so that the
// transaction is rolled back with every set written, and another writer
// then stores a chunk with the number the failed one had.
func TestHourCacheFailedAfterWriting(t *testing.T) {
	e, other := twoWriters(t, "sqlite")
	hour := time.Now().UTC().Truncate(time.Hour)
	mustIngest(t, e, requestEvents(hour, 0, 100))
	old := nowHour() - 1000
	db := storetest.SQLiteFile(t, e.st.Path)
	for _, q := range []string{
		`INSERT INTO agentrisk_seen_hours (tenant_id, hour, chunk, hashes) VALUES ('acme', ` + strconv.FormatInt(old, 10) + `, 0, x'00')`,
		`CREATE TRIGGER boom BEFORE DELETE ON agentrisk_seen_hours WHEN OLD.hour < 1000 + ` + strconv.FormatInt(old, 10) + ` BEGIN SELECT RAISE(ABORT, 'boom'); END`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	next := requestEvents(hour, 1, 100)
	if _, err := e.Ingest(context.Background(), next); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("ingest with a failing prune: %v", err)
	}
	if _, err := db.Exec(`DROP TRIGGER boom`); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, other, requestEvents(hour, 2, 100))
	if res := mustIngest(t, e, next); res.New != 100 {
		t.Fatalf("events of the failed ingest, sent again: %+v (want 100 new)", res)
	}
}

// TestHourCachePrunedHour checks that a cached set whose hour another
// writer deleted is dropped rather than trusted.
func TestHourCachePrunedHour(t *testing.T) {
	e := openTest(t)
	hour := time.Now().UTC().Truncate(time.Hour)
	evs := requestEvents(hour, 0, 20)
	mustIngest(t, e, evs)
	// Another writer deletes the hour's chunks.
	err := e.st.Update(context.Background(), func(tx store.Tx) error {
		in, err := tx.EventIngest(context.Background())
		if err != nil {
			return err
		}
		defer in.Close()
		return in.PruneHashSets(context.Background(), "acme", unixHour(hour)+1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := mustIngest(t, e, evs); res.New != 20 {
		t.Fatalf("after the hour's chunks were deleted: %+v (want 20 new)", res)
	}
}

// TestHourChunksAndCompaction checks what an ingest writes: a request into
// the current hour adds one chunk with its own hashes, the chunks are
// compacted into one past maxChunks, a closed hour is kept as one chunk,
// and the cache holds only open hours.
func TestHourChunksAndCompaction(t *testing.T) {
	defer func(n int) { maxChunks = n }(maxChunks)
	maxChunks = 4
	e := openTest(t)
	hour := time.Now().UTC().Truncate(time.Hour)
	chunks := func(h time.Time) (rows, hashes int) {
		t.Helper()
		return hourChunks(t, e, "acme", unixHour(h))
	}
	for k := 0; k < 4; k++ {
		mustIngest(t, e, requestEvents(hour, k, 10))
		if rows, hashes := chunks(hour); rows != k+1 || hashes != 10*(k+1) {
			t.Fatalf("after request %d: %d chunks, %d hashes", k, rows, hashes)
		}
	}
	mustIngest(t, e, requestEvents(hour, 4, 10))
	if rows, hashes := chunks(hour); rows != 1 || hashes != 50 {
		t.Fatalf("past %d chunks: %d chunks, %d hashes (want one of 50)", maxChunks, rows, hashes)
	}
	old := hour.Add(-3 * time.Hour)
	mustIngest(t, e, requestEvents(old, 0, 10))
	mustIngest(t, e, requestEvents(old, 1, 10))
	if rows, hashes := chunks(old); rows != 1 || hashes != 20 {
		t.Fatalf("closed hour: %d chunks, %d hashes (want one of 20)", rows, hashes)
	}
	e.hours.mu.Lock()
	defer e.hours.mu.Unlock()
	for k := range e.hours.sets {
		if !cacheable(k.hour, nowHour()) {
			t.Errorf("hour %d cached at hour %d", k.hour, nowHour())
		}
	}
	if len(e.hours.sets) != 1 {
		t.Errorf("%d sets cached, want the current hour's", len(e.hours.sets))
	}
}

// TestHourCacheConcurrentRequests ingests requests into one engine from
// several goroutines at once, each request twice: every event is new
// exactly once, whichever ingest took the cached set.
func TestHourCacheConcurrentRequests(t *testing.T) {
	e, _ := twoWriters(t, "sqlite")
	hour := time.Now().UTC().Truncate(time.Hour)
	const workers, requests = 4, 6
	news := make(chan int, workers*requests*2)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for k := 0; k < requests*2; k++ {
				res, err := e.Ingest(context.Background(), requestEvents(hour, (w*requests+k/2), 40))
				if err != nil {
					errs <- err
					return
				}
				news <- res.New
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(news)
	total := 0
	for n := range news {
		total += n
	}
	if total != workers*requests*40 {
		t.Fatalf("%d new events, want %d", total, workers*requests*40)
	}
}

// TestHourChunksMigration checks migration 70 on a store whose hour sets
// were one blob per hour (schema 60): each becomes chunk 0 of its hour, and
// the events stay known.
func TestHourChunksMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(st)
	evs := genSampleEvents()
	mustIngest(t, e, evs)
	want := aggRows(t, e)
	db := storetest.SQLiteFile(t, path)
	for _, q := range []string{
		`CREATE TABLE old_hours (tenant_id TEXT NOT NULL, hour INTEGER NOT NULL, hashes BLOB NOT NULL, PRIMARY KEY (tenant_id, hour))`,
		`INSERT INTO old_hours SELECT tenant_id, hour, group_concat(hashes, '') FROM
			(SELECT * FROM agentrisk_seen_hours ORDER BY tenant_id, hour, chunk) GROUP BY tenant_id, hour`,
		`DROP TABLE agentrisk_seen_hours`,
		`ALTER TABLE old_hours RENAME TO agentrisk_seen_hours`,
		`DELETE FROM schema_migrations WHERE version LIKE '70_%'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	st.Close()
	st, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e = NewEngine(st)
	var rows, nonZero int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE chunk <> 0) FROM agentrisk_seen_hours`).Scan(&rows, &nonZero); err != nil {
		t.Fatal(err)
	}
	if rows == 0 || nonZero != 0 {
		t.Fatalf("after migration 70: %d rows, %d not chunk 0", rows, nonZero)
	}
	if res := mustIngest(t, e, evs); res.New != 0 || res.Duplicates+res.Expired != len(evs) {
		t.Fatalf("re-ingest after migration 70: %+v", res)
	}
	if !reflect.DeepEqual(want, aggRows(t, e)) {
		t.Fatal("aggregates changed")
	}
}
