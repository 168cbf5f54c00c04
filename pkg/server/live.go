package server

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
)

// liveUpdater runs the live path of POST /tenants/{id}/events: an ingest
// hands over the aggregates it wrote (agentrisk.Engine.IngestWritten, after
// the commit), the agents they belong to are rescored (agentrisk.Live) and
// their new score and tier go into the verdict state at once.
//
// Updates run on a goroutine of their own, not on the bulk worker that
// ingests (bgwork.go): the next ingest commits while the previous one's
// agents are rescored. They are coalesced: one runs at a time, and the rows
// of every ingest that committed meanwhile are rescored together in the next
// one (for an agent in several, the row of the latest commit), so that the
// cost follows the number of updates, not of ingests. An ingest request
// returns once an update that includes its rows has finished, so a verdict
// asked after the ingest answered reflects its events. Only committed rows
// are handed over: an ingest that fails changes no score.
type liveUpdater struct {
	live *agentrisk.Live

	// writeMu serialises the server's ingests (HTTP and the event stream),
	// so that their rows reach pending in commit order: SQLite takes one
	// writer at a time, and writers that wait in its busy handler sleep up
	// to 100 ms between tries; under 10,000 events/s of concurrent ingest
	// requests that sleeping grew into 10 s timeouts.
	writeMu sync.Mutex

	mu      sync.Mutex
	cond    *sync.Cond
	pending map[agentrisk.AgentRef]agentrisk.Written
	since   time.Time // when the oldest pending rows were committed
	queued  uint64    // ingests queued so far
	done    uint64    // ingests whose rows an update has applied
	running bool
}

func newLiveUpdater(l *agentrisk.Live) *liveUpdater {
	u := &liveUpdater{live: l, pending: map[agentrisk.AgentRef]agentrisk.Written{}}
	u.cond = sync.NewCond(&u.mu)
	return u
}

// liveTicket identifies one ingest in the live path's queue (0: nothing to
// wait for).
type liveTicket uint64

// enqueue hands the rows one ingest wrote to the live path (call it with
// writeMu held, right after the commit) and starts an update unless one is
// running; the ticket is for waitLive.
func (s *Server) enqueueLive(rows []agentrisk.Written, committed time.Time) liveTicket {
	u := s.state.live
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.pending) == 0 {
		u.since = committed
	}
	for _, r := range rows {
		k := agentrisk.AgentRef{TenantID: r.TenantID, AgentID: r.AgentID}
		if old, ok := u.pending[k]; ok {
			old.Release() // superseded: its aggregate goes back to the engine
		}
		u.pending[k] = r
	}
	u.queued++
	if !u.running {
		u.running = true
		go s.liveLoop()
	}
	return liveTicket(u.queued)
}

// waitLive returns once the update that includes ticket's rows has run.
func (s *Server) waitLive(t liveTicket) {
	u := s.state.live
	u.mu.Lock()
	for u.done < uint64(t) {
		u.cond.Wait()
	}
	u.mu.Unlock()
}

// liveLoop runs updates until nothing is pending. A failed update is
// logged; the next recalculation catches up.
func (s *Server) liveLoop() {
	u := s.state.live
	u.mu.Lock()
	defer u.mu.Unlock()
	for len(u.pending) > 0 {
		rows := make([]agentrisk.Written, 0, len(u.pending))
		for _, r := range u.pending {
			rows = append(rows, r)
		}
		clear(u.pending)
		read, upto := u.since, u.queued
		u.mu.Unlock()
		sortRows(rows)
		s.liveUpdate(context.Background(), rows, read)
		u.mu.Lock()
		u.done = upto
		u.cond.Broadcast()
	}
	u.running = false
}

func sortRows(rows []agentrisk.Written) {
	slices.SortFunc(rows, func(a, b agentrisk.Written) int {
		if c := cmp.Compare(a.TenantID, b.TenantID); c != 0 {
			return c
		}
		return cmp.Compare(a.AgentID, b.AgentID)
	})
}

// liveUpdate rescores rows at the server's score time and applies the
// scores to the verdict state. read is when the oldest of the rows was
// committed: a recalculation that began reading after it may have seen
// newer aggregates than some of the rows, so its stored scores win over
// these (state.go, merge).
func (s *Server) liveUpdate(ctx context.Context, rows []agentrisk.Written, read time.Time) {
	defer func() {
		if v := recover(); v != nil {
			s.logf("live update: internal error: %v", v)
		}
	}()
	// Scored at whole seconds, rounded up so that every committed event is
	// in the window (scoreTime truncates: an event of 12:00:00.3 scored at
	// 12:00:00 would be left out until the next recalculation): updates
	// within the same second reuse the peers' features.
	at := s.cfg.At
	if at.IsZero() {
		at = s.now().UTC()
		if sec := at.Truncate(time.Second); !sec.Equal(at) {
			at = sec.Add(time.Second)
		}
	}
	scores, err := s.state.live.live.UpdateRows(ctx, rows, at)
	if err == nil {
		err = s.state.applyLive(ctx, scores, read, s.now())
	}
	if err != nil {
		s.logf("live update of %d agents: %v (the next recalculation catches up)", len(rows), err)
	}
}

// liveIngester ingests like the engine and then feeds the live path, for
// ingest paths other than POST .../events (the event stream consumer takes
// an Ingester).
type liveIngester struct{ s *Server }

func (l liveIngester) Ingest(ctx context.Context, events []agentrisk.Event) (agentrisk.IngestResult, error) {
	res, t, err := l.s.ingestCommit(ctx, events)
	l.s.waitLive(t)
	return res, err
}

// ingestCommit ingests events and hands the rows written to the live path,
// without waiting for it (the bulk worker goes on with the next ingest).
func (s *Server) ingestCommit(ctx context.Context, events []agentrisk.Event) (agentrisk.IngestResult, liveTicket, error) {
	return s.ingestCommitChecked(ctx, events, nil)
}

// ingestCommitChecked is ingestCommit that first runs check (when not nil)
// under the same lock, so that what check counts in the store does not
// change before the ingest writes.
func (s *Server) ingestCommitChecked(ctx context.Context, events []agentrisk.Event, check func(context.Context) error) (agentrisk.IngestResult, liveTicket, error) {
	mu := &s.state.live.writeMu
	mu.Lock()
	defer mu.Unlock()
	if check != nil {
		if err := check(ctx); err != nil {
			return agentrisk.IngestResult{}, 0, err
		}
	}
	res, rows, err := s.engine.IngestWritten(ctx, events)
	if err != nil || len(rows) == 0 { // duplicates only change nothing
		return res, 0, err
	}
	return res, s.enqueueLive(rows, time.Now()), nil
}
