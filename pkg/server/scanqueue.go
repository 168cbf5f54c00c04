package server

import (
	"context"
	"runtime"
	"sync"

	"github.com/lfcli/lf/pkg/agentleak"
)

// The AgentLeak scans of finished traces run off the request path: POST
// /v1/traces files a trace whose root span arrived in its tenant's queue
// and answers; scan workers take the queues in turn (one trace of each
// tenant with work, round robin) and record each trace in GET .../leaks
// once it is scanned. A queued trace's spans count towards the tenant's
// otlp.maxPendingSpans with those of its unfinished traces, so a tenant
// that sends faster than its traces are scanned gets 429 with Retry-After.

// scanJob is one finished trace waiting for its scan.
type scanJob struct {
	tenant string
	tt     *tenantTraces
	id     string
	pt     *pendingTrace
	ended  string // root or idle
}

// scanQueue is the tenants' queues of finished traces; o.mu guards it.
type scanQueue struct {
	turn   []*tenantTraces // tenants with a queued trace, in the order of their turn
	wake   chan struct{}   // a trace was queued
	idle   *sync.Cond      // signalled (on o.mu) when a scan ends and nothing is queued
	active int             // scans in progress
}

// scanWorkers is how many traces are scanned at once: half the
// processors (at least one), so that receiving spans and answering
// verdicts keep the rest.
func scanWorkers() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// enqueue files finished traces for their scan; o.mu is held.
func (o *otlpState) enqueue(jobs ...scanJob) {
	for _, j := range jobs {
		if len(j.tt.queue) == 0 {
			o.q.turn = append(o.q.turn, j.tt)
		}
		j.tt.queue = append(j.tt.queue, j)
		j.tt.spans += len(j.pt.spans)
	}
	if len(jobs) > 0 {
		select {
		case o.q.wake <- struct{}{}:
		default:
		}
	}
}

// next takes the next trace to scan (the first tenant's oldest, the
// tenant going to the back of the line); o.mu is held.
func (o *otlpState) next() (scanJob, bool) {
	if len(o.q.turn) == 0 {
		return scanJob{}, false
	}
	tt := o.q.turn[0]
	o.q.turn = o.q.turn[1:]
	j := tt.queue[0]
	tt.queue[0] = scanJob{}
	tt.queue = tt.queue[1:]
	if len(tt.queue) > 0 {
		o.q.turn = append(o.q.turn, tt)
	}
	o.q.active++
	return j, true
}

// done ends a scan taken with next: the trace's spans are no longer held.
func (o *otlpState) done(j scanJob) {
	o.mu.Lock()
	j.tt.spans -= len(j.pt.spans)
	o.q.active--
	if o.q.active == 0 && len(o.q.turn) == 0 {
		o.q.idle.Broadcast()
	}
	o.mu.Unlock()
}

// scanLoop is one scan worker: it scans queued traces until ctx ends, and
// then the traces still queued (the server has stopped taking spans by
// then), so that no accepted trace goes unscanned at shutdown.
func (s *Server) scanLoop(ctx context.Context) {
	o := s.otlp
	work := context.WithoutCancel(ctx)
	var buf scanBuf // the worker's, reused by each of its scans
	for {
		o.mu.Lock()
		j, ok := o.next()
		more := len(o.q.turn) > 0
		o.mu.Unlock()
		if more { // another worker may be asleep
			select {
			case o.q.wake <- struct{}{}:
			default:
			}
		}
		if ok {
			if err := s.scanTrace(work, &buf, j.tenant, j.tt, j.id, j.pt, j.ended); err != nil {
				s.logf("otlp: scan of trace %s (tenant %s): %v", j.id, j.tenant, err)
			}
			o.done(j)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-o.q.wake:
		}
	}
}

// waitScans waits until no trace is queued or being scanned (tests, and
// the benchmark's end).
func (o *otlpState) waitScans() {
	o.mu.Lock()
	for o.q.active > 0 || len(o.q.turn) > 0 {
		o.q.idle.Wait()
	}
	o.mu.Unlock()
}

// scannerPool is one tenant's AgentLeak scanners: a Scanner serves one
// trace at a time, so each worker scanning the tenant takes its own.
type scannerPool struct {
	mu   sync.Mutex
	free []*agentleak.Scanner
}

// get takes a free scanner or makes one with the tenant's config and vaults.
func (p *scannerPool) get(ts *tenantScanner) *agentleak.Scanner {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		sc := p.free[n-1]
		p.free = p.free[:n-1]
		return sc
	}
	if ts == nil {
		ts = &tenantScanner{}
	}
	sc := agentleak.NewScanner(ts.cfg, ts.vaults)
	// A scan's record copies what it shows of the result before the
	// scanner goes back to the pool: its results need not outlive it.
	sc.SetTransient(true)
	return sc
}

// put gives a scanner back.
func (p *scannerPool) put(sc *agentleak.Scanner) {
	p.mu.Lock()
	p.free = append(p.free, sc)
	p.mu.Unlock()
}
