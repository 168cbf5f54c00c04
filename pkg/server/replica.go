package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	agentevents "github.com/lfcli/lf/pkg/eventstream"
	"github.com/lfcli/lf/pkg/store"
)

// Replicas: several `lf serve` processes on one store (PostgreSQL) keep
// their in-memory verdict state in step through the store's coordinator
// (store.Coordinator): a change made through one replica (a tenant's risk
// config, an agent's release or baseline reset, a recalculation's new
// scores) is announced on changesChannel, and every other replica drops
// what it cached of that tenant or agent, so its next verdict reads the
// store. On SQLite the coordinator is in-process, so servers of one process
// on one file see each other's changes too.

// changesChannel is the notify/listen channel of the changes.
const changesChannel = "lf_serve_changes"

// recalcLockName is the named lock held by the replica that runs the
// background recalculation.
const recalcLockName = "lf serve: background recalculation"

// Kinds of change.
const (
	changeConfig = "config" // a tenant's risk config
	changeScores = "scores" // scores of a tenant ("" = all) were recalculated
	changeAgent  = "agent"  // one agent's state (release, baseline reset)
)

// change is the payload of a notification.
type change struct {
	From   string `json:"from"` // the replica that made it
	Kind   string `json:"kind"`
	Tenant string `json:"tenant,omitempty"`
	Agent  string `json:"agent,omitempty"`
}

func newReplicaID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// announce tells the other replicas about a change this one made. A failure
// is logged, not returned: the change itself is committed, and the other
// replicas reload everything when their listener reconnects.
func (s *Server) announce(ctx context.Context, kind, tenant, agent string) {
	if s.coord == nil {
		return
	}
	b, _ := json.Marshal(change{From: s.replicaID, Kind: kind, Tenant: tenant, Agent: agent})
	if len(b) > 7000 {
		b, _ = json.Marshal(change{From: s.replicaID, Kind: changeScores, Tenant: ""})
	}
	if err := s.coord.Notify(context.WithoutCancel(ctx), changesChannel, string(b)); err != nil {
		s.logf("replicas: cannot announce the %s change of tenant %q: %v", kind, tenant, err)
	}
}

// followChanges applies the other replicas' changes until ctx ends,
// re-subscribing after a lost connection (and then dropping every cached
// state, since notifications sent meanwhile are lost).
func (s *Server) followChanges(ctx context.Context, ready chan<- struct{}) {
	if s.coord == nil {
		close(ready)
		return
	}
	first := true
	for ctx.Err() == nil {
		l, err := s.coord.Listen(ctx, changesChannel)
		if err != nil {
			if first {
				close(ready)
				first = false
			}
			s.logf("replicas: cannot listen for changes (retrying in 1s): %v", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		if first {
			close(ready)
			first = false
		} else {
			s.state.refresh(ctx, "", nil)
		}
		for n := range l.C() {
			s.applyChange(ctx, n)
		}
		l.Close()
	}
}

func (s *Server) applyChange(ctx context.Context, n store.Notification) {
	if n.Missed {
		s.state.refresh(ctx, "", nil)
		return
	}
	var c change
	if err := json.Unmarshal([]byte(n.Payload), &c); err != nil {
		s.logf("replicas: ignoring a malformed change notification: %v", err)
		return
	}
	if c.From == s.replicaID {
		return
	}
	switch c.Kind {
	case changeConfig:
		s.state.dropConfig(c.Tenant)
	case changeAgent:
		if err := s.state.refreshAgent(ctx, c.Tenant, c.Agent); err != nil {
			// The store is unreachable: forget the tenant instead, so the
			// next verdict reloads rather than use the stale state.
			s.state.refresh(ctx, c.Tenant, nil)
		}
	default: // changeScores, and kinds of newer versions
		s.state.refresh(ctx, c.Tenant, nil)
	}
}

// isUnavailable tells whether err means the store cannot be reached now.
func isUnavailable(err error) bool {
	_, ok := store.Unavailable(err)
	return ok
}

// writeUnavailable answers 503 with the reason and a Retry-After: the store
// (PostgreSQL) is down or restarting. The pool reconnects by itself, so the
// same request succeeds once the store is back, without restarting lf serve.
func (s *Server) writeUnavailable(w http.ResponseWriter, r *http.Request, err error) {
	reason, _ := store.Unavailable(err)
	s.logf("%s %s: store unavailable: %v", r.Method, r.URL.Path, err)
	w.Header().Set("Retry-After", "1")
	writeError(w, http.StatusServiceUnavailable, "store unavailable: "+reason+"; retry later", "")
}

// startEvents starts the JetStream consumer when the config names a NATS
// URL; done is closed when it stopped (at once without one). A consumer
// that cannot start (NATS down, no stream) fails the start of lf serve.
func (s *Server) startEvents(ctx context.Context, done chan struct{}) error {
	opt := s.cfg.EventOptions
	if opt.URL == "" {
		close(done)
		return nil
	}
	opt.Logf = s.logf
	c, err := agentevents.Dial(ctx, opt, liveIngester{s}) // events from the stream feed the live path too
	if err != nil {
		close(done)
		return err
	}
	s.logf("lf serve: consuming agent events from %s (stream %s, durable consumer %s)", agentevents.Redact(opt.URL), c.Stream(), c.Durable())
	go func() {
		defer close(done)
		defer c.Close()
		c.Run(ctx)
	}()
	return nil
}
