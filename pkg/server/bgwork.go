package server

import (
	"runtime"
	"sync"
)

// Bulk work (ingesting a batch of events, rescoring the agents it touched)
// runs on one OS thread of its own at a lower scheduling priority than the
// threads that answer verdicts. On a machine whose cores are all busy, an
// ingest request (milliseconds of CPU in one piece) otherwise competes with
// the verdicts on an equal footing, and a verdict that waits behind it
// misses its latency target; at the lower priority the kernel runs it when a
// core has time. Ingests were one at a time already (the store takes one
// writer), so running them one after the other costs nothing.

// The worker's thread holds one of the runtime's processors (Ps) while it
// runs, and at the lower priority the kernel may leave it waiting with that
// P in hand: on a 2-core machine the verdicts were then left one P, and
// runnable goroutines waited for it (runtime /sched/latencies p99 3.2 ms
// against 0.5 ms with a spare P, under 10,000 events/s of ingest). So the
// worker brings a P of its own: starting it raises GOMAXPROCS by one. The
// kernel still shares the cores by priority; the extra P only lets the
// verdicts use every core while the worker waits for one.

// bulkJobs is the queue of the bulk worker, started on first use; the
// worker lives as long as the process.
var (
	bulkOnce  sync.Once
	bulkJobs  chan func()
	bulkProcs int // GOMAXPROCS before the worker started
)

// runBulk runs f on the bulk worker and returns when it has run; a panic
// in f is raised again in the caller, where the handler's recoverer sees it.
func runBulk(f func()) {
	bulkOnce.Do(func() {
		bulkProcs = runtime.GOMAXPROCS(0)
		runtime.GOMAXPROCS(bulkProcs + 1)
		bulkJobs = make(chan func())
		go bulkWorker(bulkJobs)
	})
	done := make(chan any, 1)
	bulkJobs <- func() {
		defer func() { done <- recover() }()
		f()
	}
	if p := <-done; p != nil {
		panic(p)
	}
}

// bulkWorker runs jobs on a thread of its own whose priority it lowers.
// The thread stays locked to this goroutine, so no other goroutine runs at
// the lower priority, and Go's runtime starts new threads from its template
// thread, never from a locked one, so none inherits it. Jobs recover their
// own panics (runBulk), so the worker outlives them.
func bulkWorker(jobs <-chan func()) {
	runtime.LockOSThread()
	lowerThreadPriority()
	for f := range jobs {
		f()
	}
}
