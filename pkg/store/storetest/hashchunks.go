package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/lfcli/lf/pkg/store/backend"
)

// hashSet is every hash of a tenant's hour, its chunks' in chunk order (nil
// when the hour has none).
func hashSet(in backend.EventIngest, tenant string, hour int64) ([]byte, error) {
	b, _, n, err := in.HashChunks(ctx, tenant, hour, -1)
	if n == 0 {
		return nil, err
	}
	return b, err
}

// ingestTx runs fn on an ingest of its own transaction.
func ingestTx(st backend.Backend, fn func(in backend.EventIngest) error) error {
	return st.Update(ctx, func(tx backend.Tx) error {
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		return fn(in)
	})
}

// chunksAfter is HashChunks as one comparable string.
func chunksAfter(in backend.EventIngest, tenant string, hour, after int64) string {
	b, last, n, err := in.HashChunks(ctx, tenant, hour, after)
	return fmt.Sprintf("%v %d %d %v", b, last, n, err)
}

// testHashChunks checks an hour's chunks: appended in number order, read
// from a number on (the chunk at that number tells the hour is still
// there), compacted into one that keeps the highest number, pruned with
// their hour, and written and read back within one ingest.
func testHashChunks(t *testing.T, st backend.Backend) {
	must(t, ingestTx(st, func(in backend.EventIngest) error {
		for c := int64(0); c < 3; c++ {
			if err := in.AddHashChunk(ctx, "acme", 500, c, []byte{byte(10 + c)}); err != nil {
				return err
			}
		}
		// Read back within the ingest that wrote them.
		if got := chunksAfter(in, "acme", 500, -1); got != "[10 11 12] 2 3 <nil>" {
			t.Errorf("chunks written in this ingest = %s", got)
		}
		return in.AddHashChunk(ctx, "acme", 501, 0, []byte{7})
	}))
	must(t, ingestTx(st, func(in backend.EventIngest) error {
		for _, c := range []struct {
			after int64
			want  string
		}{
			{-1, "[10 11 12] 2 3 <nil>"},
			{0, "[11 12] 2 3 <nil>"},
			{1, "[12] 2 2 <nil>"},
			{2, "[] 2 1 <nil>"},
			{3, "[] 0 0 <nil>"},
		} {
			if got := chunksAfter(in, "acme", 500, c.after); got != c.want {
				t.Errorf("chunks of hour 500 after %d = %s, want %s", c.after, got, c.want)
			}
		}
		if got := chunksAfter(in, "globex", 500, -1); got != "[] 0 0 <nil>" {
			t.Errorf("another tenant's hour = %s", got)
		}
		// Compaction: one chunk with the highest number.
		return in.PutHashSet(ctx, "acme", 500, 2, []byte{10, 11, 12})
	}))
	must(t, ingestTx(st, func(in backend.EventIngest) error {
		if got := chunksAfter(in, "acme", 500, 0); got != "[10 11 12] 2 1 <nil>" {
			t.Errorf("compacted hour read after chunk 0 = %s", got)
		}
		if got := chunksAfter(in, "acme", 500, 2); got != "[] 2 1 <nil>" {
			t.Errorf("compacted hour read after chunk 2 = %s", got)
		}
		if err := in.AddHashChunk(ctx, "acme", 500, 3, []byte{13}); err != nil {
			return err
		}
		if err := in.PruneHashSets(ctx, "acme", 501); err != nil {
			return err
		}
		if got := chunksAfter(in, "acme", 500, 2); got != "[] 0 0 <nil>" {
			t.Errorf("pruned hour = %s", got)
		}
		if got := chunksAfter(in, "acme", 501, -1); got != "[7] 0 1 <nil>" {
			t.Errorf("hour after the pruned one = %s", got)
		}
		return nil
	}))
}

// testHashChunksRolledBack checks that the chunks and the compaction of a
// failed Update leave nothing behind.
func testHashChunksRolledBack(t *testing.T, st backend.Backend) {
	boom := errors.New("boom")
	must(t, ingestTx(st, func(in backend.EventIngest) error {
		return in.AddHashChunk(ctx, "acme", 600, 0, []byte{1})
	}))
	err := ingestTx(st, func(in backend.EventIngest) error {
		if err := in.AddHashChunk(ctx, "acme", 600, 1, []byte{2}); err != nil {
			return err
		}
		if err := in.PutHashSet(ctx, "acme", 601, 0, []byte{3}); err != nil {
			return err
		}
		if _, _, _, err := in.HashChunks(ctx, "acme", 600, 0); err != nil { // sends the writes
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want the function's error", err)
	}
	must(t, ingestTx(st, func(in backend.EventIngest) error {
		if got := chunksAfter(in, "acme", 600, -1); got != "[1] 0 1 <nil>" {
			t.Errorf("hour 600 after a failed ingest = %s", got)
		}
		if got := chunksAfter(in, "acme", 601, -1); got != "[] 0 0 <nil>" {
			t.Errorf("hour 601 after a failed ingest = %s", got)
		}
		return nil
	}))
}

// testHashChunksConcurrent runs ingests of the same hour at once, each
// reading the hour's highest chunk and adding the next, as agentrisk
// does: ingests take turns, so every chunk gets its own number and none is
// lost.
func testHashChunksConcurrent(t *testing.T, st backend.Backend) {
	const writers = 6
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- ingestTx(st, func(in backend.EventIngest) error {
				_, last, n, err := in.HashChunks(ctx, "acme", 700, -1)
				if err != nil {
					return err
				}
				if n == 0 {
					last = -1
				}
				return in.AddHashChunk(ctx, "acme", 700, last+1, []byte{byte(i)})
			})
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent ingest failed: %v", err)
		}
	}
	must(t, ingestTx(st, func(in backend.EventIngest) error {
		b, last, n, err := in.HashChunks(ctx, "acme", 700, -1)
		if err != nil || n != writers || last != writers-1 || len(b) != writers {
			t.Fatalf("after %d concurrent ingests: %v %d %d %v", writers, b, last, n, err)
		}
		seen := bytes.Clone(b)
		for i := 0; i < writers; i++ {
			if !bytes.Contains(seen, []byte{byte(i)}) {
				t.Errorf("ingest %d's chunk lost: %v", i, b)
			}
		}
		return nil
	}))
}
