package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/store"
)

// Server is the lf HTTP API.
type Server struct {
	cfg        *Config
	store      *store.Store
	engine     *agentrisk.Engine
	keys       *keyring
	state      *verdictState
	limiter    *rateCounter
	recalc     *recalculator
	dispatcher *alerts.Dispatcher
	coord      store.Coordinator // nil: the store has none (one process, no announcements)
	replicaID  string            // this process among the replicas, in change notifications
	log        io.Writer
	logMu      sync.Mutex
	now        func() time.Time
	handler    http.Handler
	otlp       *otlpState      // POST /v1/traces: pending traces and scanned leaks (leaks.go)
	grpc       *otlpGRPCRunner // the OTLP/gRPC receiver (otlp_grpc.go); nil when off
	ruleMu     sync.Mutex      // POST alert-rules: the count and the write together
}

// New builds a server on an open store. It loads the config's alert rules
// into the store and starts the alert dispatcher; Serve runs the rest.
func New(ctx context.Context, cfg *Config, st *store.Store, log io.Writer) (*Server, error) {
	if log == nil {
		log = io.Discard
	}
	s := &Server{
		cfg: cfg, store: st, engine: agentrisk.NewEngine(st), keys: newKeyring(cfg.Keys),
		limiter: newRateCounter(), log: log, now: time.Now, replicaID: newReplicaID(),
	}
	if c, ok := st.Coordinator(); ok {
		s.coord = c
		if st.Shared() {
			s.limiter.shared = c
			s.limiter.logf = s.logf
		}
	}
	set, err := resolveOTLP(cfg.OTLP, cfg.Dir)
	if err != nil {
		return nil, err
	}
	s.otlp = newOTLPState(set)
	s.state = newVerdictState(s.engine)
	s.recalc = &recalculator{s: s}
	for _, r := range cfg.AlertRules {
		if err := alerts.PutRule(ctx, st, r); err != nil {
			return nil, err
		}
	}
	opt := cfg.Alerts
	opt.Logf = s.logf
	s.dispatcher = alerts.NewDispatcher(st, opt)
	s.handler = s.routes()
	return s, nil
}

// scoreTime is the time recalculations score at: the config's fixed
// scoreTime (for replaying historical events) or the current time.
func (s *Server) scoreTime() time.Time {
	if !s.cfg.At.IsZero() {
		return s.cfg.At
	}
	return s.now().UTC().Truncate(time.Second) // the API's times have second precision, like the reference
}

// Handler returns the HTTP handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.handler }

// logf writes one log line. Keys never reach it: requests are logged by the
// key's name only.
func (s *Server) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, time.Now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
}

// Serve answers requests on ln and runs the background recalculation until
// ctx ends; then it stops accepting connections, waits for in-flight
// requests and the running recalculation, and drains the alert queue, each
// for at most grace.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	if err := s.ListenOTLPGRPC(); err != nil { // otlp_grpc.go; nothing when off
		return err
	}
	var active activeConns
	ln = newLimitListener(ln, s.cfg.MaxConnections)
	hs := &http.Server{
		ConnState:         active.track,
		Handler:           s.handler,
		ReadHeaderTimeout: s.headerTimeout(),
		MaxHeaderBytes:    maxHeaderBytes,
		ReadTimeout:       s.requestTimeout(),
		IdleTimeout:       idleTimeout,
		// OPTIONS * reaches guard, which answers it in JSON (net/http's
		// own answer has no body).
		DisableGeneralOptionsHandler: true,
	}
	jobCtx, stopJob := context.WithCancel(ctx)
	jobDone := make(chan struct{})
	followDone := make(chan struct{})
	ready := make(chan struct{})
	go func() {
		defer close(followDone)
		s.followChanges(jobCtx, ready)
	}()
	<-ready
	go func() {
		defer close(jobDone)
		s.recalc.loop(jobCtx, s.cfg.Interval)
	}()
	otlpDone := make(chan struct{})
	go func() {
		defer close(otlpDone)
		s.otlpLoop(jobCtx) // idle traces of POST /v1/traces
	}()
	eventsDone := make(chan struct{})
	if err := s.startEvents(jobCtx, eventsDone); err != nil {
		stopJob()
		<-jobDone
		<-followDone
		<-otlpDone
		if s.grpc != nil {
			s.grpc.ln.Close()
		}
		return err
	}
	stopGRPC := s.serveOTLPGRPC()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.logf("lf serve: listening on http://%s (recalculation every %s)", ln.Addr(), s.cfg.Interval)
	s.logKeys()
	stats := os.Getenv(rtStatsEnv) == "1" // rtstats.go
	rt0 := readRuntimeStats()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	if stats {
		s.logf("lf serve: %s", readRuntimeStats().since(rt0))
	}
	s.logf("lf serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := shutdown(sctx, hs, &active); err != nil && serveErr == nil {
		serveErr = fmt.Errorf("shutdown: %w", err)
	}
	stopGRPC(sctx)
	stopJob()
	<-jobDone
	<-followDone
	<-eventsDone
	<-otlpDone
	// Waiting for the lock means waiting for an on-demand run started by a
	// request that Shutdown already let finish, or for the background run.
	s.recalc.wait()
	if err := s.dispatcher.Close(sctx); err != nil {
		s.logf("lf serve: alert queue not drained: %v", err)
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	s.logf("lf serve: stopped")
	return serveErr
}

// Close stops the alert dispatcher of a server that never ran Serve (tests
// that use Handler directly).
func (s *Server) Close(ctx context.Context) error { return s.dispatcher.Close(ctx) }

// activeConns counts connections with a request in progress. http.Server
// Shutdown waits up to 5 s for connections that were accepted but never
// sent a request (clients dial spare connections); those hold no work, so
// shutdown stops waiting for them once no request is in progress.
// track runs twice per request: connections of Serve's listener keep
// their state themselves (an atomic swap, no lock); others go in a map.
type activeConns struct {
	active atomic.Int64 // requests in progress on limitConns
	mu     sync.Mutex
	states map[net.Conn]http.ConnState
	n      int
}

func (a *activeConns) track(c net.Conn, st http.ConnState) {
	if lc, ok := c.(*limitConn); ok {
		if st == http.StateIdle {
			lc.idleSince.Store(time.Now().UnixNano()) // before the state: evictIdle reads them in this order
		}
		if http.ConnState(lc.state.Swap(int32(st))) == http.StateActive { // zero is StateNew
			a.active.Add(-1)
		}
		switch st {
		case http.StateActive:
			a.active.Add(1)
		case http.StateIdle:
			lc.turnedIdle()
		}
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.states == nil {
		a.states = map[net.Conn]http.ConnState{}
	}
	if a.states[c] == http.StateActive {
		a.n--
	}
	if st == http.StateActive {
		a.n++
	}
	if st == http.StateClosed || st == http.StateHijacked {
		delete(a.states, c)
	} else {
		a.states[c] = st
	}
}

func (a *activeConns) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n + int(a.active.Load())
}

// shutdown stops hs gracefully: in-progress requests finish (until ctx
// ends), then the remaining idle or never-used connections are closed.
func shutdown(ctx context.Context, hs *http.Server, active *activeConns) error {
	done := make(chan error, 1)
	go func() { done <- hs.Shutdown(ctx) }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			if active.count() == 0 {
				hs.Close()
				<-done
				return nil
			}
		}
	}
}
