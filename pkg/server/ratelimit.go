package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// rateCounter counts each tenant's requests in fixed windows of the tenant's
// rateLimit.windowSeconds, aligned to the Unix epoch. The verdict handler
// reads the count used so far, decides, and counts the request unless the
// rate stage blocked it, all under the tenant's lock so that concurrent
// requests never both take the last slot.
//
// One process (SQLite) counts alone and exactly. Replicas on one PostgreSQL
// store share each window's count through the store's coordinator (shared):
// a replica admits a request only with a slot it leased from the shared
// counter, leasing chunkOf(limit) slots at a time (Coordinator.Take never
// grants past the limit), the next chunk in the background when half of
// the current one is used. So the replicas together never admit more than
// the limit; they may admit less by the slots other replicas leased and
// have not used yet, at most (replicas - 1) x 1.5 x limit/50 (3% of the
// limit with two replicas). The count a decision sees (for the tier multipliers,
// which compare it with a fraction of the limit) is the shared counter read
// at most sharedRefresh ago minus this replica's unused slots. While the
// shared counter cannot be reached, a replica admits at most one chunk
// alone per second of the outage. See docs/replicas.md.
type rateCounter struct {
	mu      sync.Mutex
	tenants map[string]*tenantWindow

	shared store.Coordinator // nil: this process counts alone
	logf   func(format string, args ...any)
}

// sharedRefresh is how stale a replica's reading of the shared count may
// get before a decision re-reads it.
const sharedRefresh = 100 * time.Millisecond

// chunkOf is how many slots a replica leases at a time.
func chunkOf(limit int) int64 { return int64(max(1, limit/50)) }

type tenantWindow struct {
	mu     sync.Mutex
	window int64 // window index: unix seconds / window length
	length int
	count  int

	// Shared counting.
	tokens  int64     // slots leased and not used yet
	total   int64     // the shared counter at the last reading
	read    time.Time // when (wall clock) it was read
	offline int64     // requests admitted while the store was unreachable
	retry   time.Time // no store access before this (after an error)
	quota   int64     // requests this replica may still admit alone until retry
	busy    bool      // a background lease or read is in flight
}

func newRateCounter() *rateCounter { return &rateCounter{tenants: map[string]*tenantWindow{}} }

func (c *rateCounter) tenant(id string) *tenantWindow {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.tenants[id]
	if w == nil {
		w = &tenantWindow{}
		c.tenants[id] = w
	}
	return w
}

// do runs decide with the number of requests tenant already used in the
// current window of windowSeconds (0 = no limiter: always 0) and counts the
// request when decide says so. limit is the tenant's limit per window;
// replicas lease their slots of it.
func (c *rateCounter) do(tenant string, windowSeconds, limit int, now time.Time, decide func(used int) (count bool)) {
	if windowSeconds <= 0 {
		decide(0)
		return
	}
	w := c.tenant(tenant)
	w.mu.Lock()
	defer w.mu.Unlock()
	idx := now.Unix() / int64(windowSeconds)
	if idx != w.window || w.length != windowSeconds {
		w.window, w.length, w.count = idx, windowSeconds, 0
		w.tokens, w.total, w.read, w.offline, w.quota = 0, 0, time.Time{}, 0, 0
	}
	if c.shared == nil || limit <= 0 {
		if decide(w.count) {
			w.count++
		}
		return
	}
	key := fmt.Sprintf("rate/%s/%d/%d", tenant, windowSeconds, idx)
	// The counter may be forgotten one window after its own ends.
	expires := time.Unix((idx+2)*int64(windowSeconds), 0)
	wall := time.Now()
	// The store is read and written in the background, so that a verdict
	// waits for it only when this replica ran out of slots: the next chunk
	// is leased when half of the current one is used, and the shared count
	// re-read every sharedRefresh.
	chunk := chunkOf(limit)
	if !w.busy && !wall.Before(w.retry) {
		switch {
		case w.tokens < (chunk+1)/2 && w.total < int64(limit):
			c.takeAsync(w, idx, windowSeconds, key, expires, chunk, limit)
		case wall.Sub(w.read) > sharedRefresh:
			c.takeAsync(w, idx, windowSeconds, key, expires, 0, limit)
		}
	}
	if !decide(int(w.total - w.tokens + w.offline)) {
		return
	}
	if w.tokens == 0 {
		c.take(w, key, expires, chunk, limit, wall)
	}
	switch {
	case w.tokens > 0:
		w.tokens--
	case wall.Before(w.retry) && w.quota > 0:
		// The shared counter cannot be reached: admit, counting locally,
		// rather than fail verdicts, but at most one chunk per second of
		// the outage (the decision already saw the local count).
		w.offline++
		w.quota--
	default:
		// Every slot of the window is leased: decide again as over the
		// limit, so that the rate stage blocks the request.
		decide(max(int(w.total), limit))
	}
}

// take leases n slots (n = 0: reads the counter), with w locked. After an
// error it leaves the store alone for a second.
func (c *rateCounter) take(w *tenantWindow, key string, expires time.Time, n int64, limit int, wall time.Time) {
	if wall.Before(w.retry) {
		return
	}
	granted, total, err := c.takeShared(key, expires, n, limit)
	w.record(granted, total, err, wall, chunkOf(limit))
}

func (c *rateCounter) takeShared(key string, expires time.Time, n int64, limit int) (granted, total int64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	granted, total, err = c.shared.Take(ctx, key, expires, n, int64(limit))
	if err != nil && c.logf != nil {
		c.logf("rate limit: the shared counter is unreachable, counting locally for 1s: %v", err)
	}
	return granted, total, err
}

// takeAsync is take in the background (w locked by the caller; the result
// is recorded under the lock later, if the window is still the same).
func (c *rateCounter) takeAsync(w *tenantWindow, idx int64, length int, key string, expires time.Time, n int64, limit int) {
	w.busy = true
	go func() {
		granted, total, err := c.takeShared(key, expires, n, limit)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.busy = false
		if w.window == idx && w.length == length {
			w.record(granted, total, err, time.Now(), chunkOf(limit))
		}
	}()
}

// record adds a lease's answer (w locked). After an error the replica
// leaves the store alone for a second and may admit one chunk alone.
func (w *tenantWindow) record(granted, total int64, err error, wall time.Time, chunk int64) {
	if err != nil {
		if !wall.Before(w.retry) { // a new outage, not a second error of this one
			w.retry, w.quota = wall.Add(time.Second), chunk
		}
		return
	}
	w.tokens += granted
	w.total = max(w.total, total) // the shared counter only grows
	w.read = wall
}
