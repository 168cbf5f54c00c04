package agentrisk

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/lfcli/lf/pkg/store"
)

// aggCache keeps the decoded aggregates of the agents recent ingests wrote
// (Engine.Ingest and IngestWritten: the requests of lf serve), so that the
// next request into the same agents merges its events into them instead of
// decoding each stored aggregate again.
//
// Validation rule: an entry holds an aggregate decoded (or folded) in
// memory and its encoding exactly as this engine stored it. An ingest still
// reads each agent's stored row, in its transaction, as before; the entry
// is used only when the stored bytes equal the entry's encoding (a memcmp,
// far cheaper than decoding), which then decode to exactly the entry's
// aggregate. Whatever else wrote the row since, a second replica on the
// same PostgreSQL database, lf agents ingest on the same SQLite file, a
// baseline reset, changed its bytes (the encoding is canonical: equal
// bytes are an equal aggregate), and the stored row is decoded as before.
//
// An entry is taken out of the cache by the ingest that uses it (two
// ingests never share one) and put back, updated, only after that ingest
// committed: a rolled-back ingest leaves nothing in the cache that the store
// does not have.
type aggCache struct {
	mu     sync.Mutex
	aggs   map[agentKey]*cachedAgg
	bytes  int     // the estimated memory of the entries
	folder *folder // a folder not in use: its tables serve request after request
}

// takeFolder returns the spare folder, or a new one when another ingest
// has it.
func (c *aggCache) takeFolder() *folder {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder
	c.folder = nil
	if f == nil {
		f = &folder{}
	}
	return f
}

// putFolder keeps f for the next ingest. Its tables are reset per agent (a
// new stamp), so nothing of one ingest shows in the next.
func (c *aggCache) putFolder(f *folder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.folder = f
}

// cachedAgg is an agent's aggregate, decoded with the lookup maps ingest
// merges through (its strings its own), and its encoding as stored. The
// encoding is never written to: it is also the row handed to the live path.
type cachedAgg struct {
	blob []byte
	a    *agg
	lent atomic.Bool // a is handed to the live path (Written), which has not released it
}

// maxCachedAggBytes bounds the cache's memory, estimated as aggMemory of
// each entry: 128 MB hold some 10,000 agents of a few hundred hour, session
// and pattern entries each. When an entry does not fit, others (in map
// order, i.e. at random) are dropped until it does; a dropped agent's next
// ingest decodes its stored aggregate, as every ingest did before.
var maxCachedAggBytes = 128 << 20

// aggMemory estimates an entry's memory: the decoded slices and maps take
// about four times the encoding.
func aggMemory(c *cachedAgg) int { return 5*len(c.blob) + 512 }

// take removes and returns k's entry when its encoding is blob (the stored
// one); a stale entry is dropped. The entry's encoding is then free: the
// ingest that took it encodes the merged aggregate into it.
func (c *aggCache) take(k agentKey, blob []byte) *cachedAgg {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.aggs[k]
	if e == nil {
		return nil
	}
	delete(c.aggs, k)
	c.bytes -= aggMemory(e)
	if e.lent.Load() || !bytes.Equal(e.blob, blob) {
		return nil // still being read, or stale
	}
	return e
}

// peek returns k's entry, left in the cache, unless it is lent (nil when
// none): a store compares its encoding with the stored one (readAgent).
func (c *aggCache) peek(k agentKey) *cachedAgg {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.aggs[k]; e != nil && !e.lent.Load() {
		return e
	}
	return nil
}

// takeIf removes e, k's entry as peek returned it, and tells whether it
// was still there and not lent.
func (c *aggCache) takeIf(k agentKey, e *cachedAgg) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.aggs[k] != e || e.lent.Load() {
		return false
	}
	delete(c.aggs, k)
	c.bytes -= aggMemory(e)
	return true
}

// keep puts the entries of a committed ingest into the cache.
func (c *aggCache) keep(entries map[agentKey]*cachedAgg) {
	if len(entries) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.aggs == nil {
		c.aggs = make(map[agentKey]*cachedAgg, len(entries))
	}
	for k, e := range entries {
		size := aggMemory(e)
		if size > maxCachedAggBytes {
			continue
		}
		if old := c.aggs[k]; old != nil {
			c.bytes -= aggMemory(old)
			delete(c.aggs, k)
		}
		for ok, old := range c.aggs {
			if c.bytes+size <= maxCachedAggBytes {
				break
			}
			c.bytes -= aggMemory(old)
			delete(c.aggs, ok)
		}
		c.aggs[k] = e
		c.bytes += size
	}
}

// Written is one agent's aggregate as an ingest stored it (IngestWritten):
// the row, as Tx.AgentAggregate would read it, and, for the live path, its
// aggregate already decoded, so that rescoring it need not decode the row.
//
// The decoded aggregate is lent, not copied: it is the engine's cached one
// (aggCache), which a later ingest merges into only once the holder gave it
// back with Release (Live.UpdateRows does so after scoring); until then a
// later ingest of the agent decodes its stored row instead. A Written must
// not be used after its release.
type Written struct {
	store.AgentRow
	ent *cachedAgg // the aggregate lent; nil: decode Agg
}

// WrittenRow is a row read from the store, to be decoded when scored.
func WrittenRow(r store.AgentRow) Written { return Written{AgentRow: r} }

// Release gives the aggregate lent with w back to the engine.
func (w *Written) Release() {
	if w.ent != nil {
		w.ent.lent.Store(false)
		w.ent = nil
	}
}

// decoded is w's aggregate: the one lent, or Agg decoded.
func (w *Written) decoded() (*agg, error) {
	if w.ent != nil {
		return w.ent.a, nil
	}
	return decodeAgg(w.Agg, false)
}
