package server

import (
	"context"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
)

// liveUpdater runs the live path of POST /tenants/{id}/events: after an
// ingest commits, the agents it touched are rescored (agentrisk.Live) and
// their new score and tier go into the verdict state at once. Updates are
// coalesced: one runs at a time, and the agents of every ingest that
// committed meanwhile are rescored together in the next one, so that the
// cost follows the number of updates, not of ingests. The ingest request
// returns once an update that includes its agents has finished, so a verdict
// asked after the ingest answered reflects its events.
type liveUpdater struct {
	live *agentrisk.Live

	// writeMu serialises the server's ingests and the live path's reads:
	// SQLite takes one writer at a time, and writers that wait in its busy
	// handler sleep up to 100 ms between tries; under 10,000 events/s of
	// concurrent ingest requests that sleeping grew into 10 s timeouts.
	writeMu sync.Mutex

	mu      sync.Mutex
	cond    *sync.Cond
	pending map[agentrisk.AgentRef]struct{}
	queued  uint64 // ingests queued so far
	done    uint64 // ingests whose agents an update has rescored
	running bool
}

func newLiveUpdater(l *agentrisk.Live) *liveUpdater {
	u := &liveUpdater{live: l, pending: map[agentrisk.AgentRef]struct{}{}}
	u.cond = sync.NewCond(&u.mu)
	l.WriteLock = &u.writeMu
	return u
}

// liveIngested is the post-ingest hook: it rescores the agents an ingest
// wrote (refs, after the commit) and waits until their scores are in the
// verdict state.
// A failed update is logged; the next recalculation catches up.
func (s *Server) liveIngested(ctx context.Context, refs []agentrisk.AgentRef) {
	u := s.state.live
	ctx = context.WithoutCancel(ctx)
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, r := range refs {
		u.pending[r] = struct{}{}
	}
	u.queued++
	mine := u.queued
	for u.done < mine {
		if u.running {
			u.cond.Wait()
			continue
		}
		u.running = true
		batch := make([]agentrisk.AgentRef, 0, len(u.pending))
		for r := range u.pending {
			batch = append(batch, r)
		}
		u.pending = map[agentrisk.AgentRef]struct{}{}
		upto := u.queued
		u.mu.Unlock()
		s.liveUpdate(ctx, batch)
		u.mu.Lock()
		u.running = false
		u.done = upto
		u.cond.Broadcast()
	}
}

// liveUpdate rescores refs at the server's score time and applies the
// scores to the verdict state.
func (s *Server) liveUpdate(ctx context.Context, refs []agentrisk.AgentRef) {
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
	read := time.Now()
	scores, err := s.state.live.live.Update(ctx, refs, at)
	if err == nil {
		err = s.state.applyLive(ctx, scores, read, s.now())
	}
	if err != nil {
		s.logf("live update of %d agents: %v (the next recalculation catches up)", len(refs), err)
	}
}

// liveIngester ingests like the engine and then feeds the live path, for
// ingest paths other than POST .../events (the event stream consumer takes
// an Ingester).
type liveIngester struct{ s *Server }

func (l liveIngester) Ingest(ctx context.Context, events []agentrisk.Event) (agentrisk.IngestResult, error) {
	mu := &l.s.state.live.writeMu
	mu.Lock()
	res, err := l.s.engine.Ingest(ctx, events)
	mu.Unlock()
	if err == nil && len(res.Touched) > 0 {
		l.s.liveIngested(ctx, res.Touched) // the agents with new events (duplicates change nothing)
	}
	return res, err
}
