package agentrisk

import (
	"sync"
)

// hourCache keeps the hash sets of the open hours (the current and the
// previous one) between ingests, so that a request into the current hour
// neither reads the hour's whole set from the store nor rebuilds its table:
// it reads only the chunks other writers stored since (see hourSet.last).
//
// Validation rule: a cached set holds exactly the hashes of its hour's
// chunks numbered up to last. Chunk numbers only grow within an hour, and a
// compaction keeps the highest number of the chunks it replaces, so the
// set is brought up to date by reading the chunks numbered above last (the
// union of what another writer, a second replica or lf agents ingest on the
// same file, added; a compaction of them reads as one chunk). The chunk
// numbered last itself is read too (without its hashes): when it and every
// later one are gone, the hour was pruned and the set is dropped.
//
// A set is taken out of the cache by the ingest that uses it and put back
// only after that ingest committed: a rolled-back ingest leaves no hash in
// the cache that the store does not have, and two ingests never share one.
type hourCache struct {
	mu     sync.Mutex
	sets   map[tenantHour]*hourSet
	hashes int // held by the sets
}

// Bounds: only the sets of hours at or after the previous hour are kept, at
// most maxCachedHashes hashes in all (16 bytes each in tables 37-75% full:
// 180-360 MB at most for the default; 8 M hashes are 14 minutes of one
// tenant ingesting 10,000 events a second). A set that does not fit is not
// kept: its next ingest reads it from the store, as every ingest did before.
var maxCachedHashes = 8 << 20

// cacheable tells whether the set of hour is kept once the current hour is now.
func cacheable(hour, now int64) bool { return hour >= now-1 && hour <= now }

// take removes and returns the cached set of k (nil when none).
func (c *hourCache) take(k tenantHour) *hourSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sets[k]
	if s != nil {
		delete(c.sets, k)
		c.hashes -= s.size()
	}
	return s
}

// keep puts the sets of a committed ingest into the cache: those of open
// hours, unpacked, a set with fewer chunks than a cached one of the same
// hour excepted. It drops the sets of hours no longer open.
func (c *hourCache) keep(sets map[tenantHour]*hourSet, now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, s := range c.sets {
		if !cacheable(k.hour, now) {
			delete(c.sets, k)
			c.hashes -= s.size()
		}
	}
	for k, s := range sets {
		if !cacheable(k.hour, now) || s.isPacked || s.dirty {
			continue
		}
		if old := c.sets[k]; old != nil {
			if old.last >= s.last {
				continue
			}
			c.hashes -= old.size()
		}
		if c.hashes+s.size() > maxCachedHashes {
			continue
		}
		s.seen.pool, s.added, s.dirty = nil, nil, false
		if c.sets == nil {
			c.sets = map[tenantHour]*hourSet{}
		}
		c.sets[k] = s
		c.hashes += s.size()
	}
}
