// Package runbatch is the backend-neutral half of a RunWriter: the run's
// head as stored while it is written, and the queue that hands its results
// to the backend in batches, so memory stays flat however many results a
// run has.
package runbatch

import (
	"context"

	"github.com/lfcli/lf/pkg/model"
)

// Size is how many results go into one write (one transaction) unless the
// backend asks for another size (NewSized).
const Size = 2000

// Head returns what is stored of run while its writer works: no results,
// status running, so that scorers (which read completed runs) never see it.
func Head(run model.EvaluationRun) model.EvaluationRun {
	run.Results = nil
	run.Status = model.StatusRunning
	return run
}

// Queue queues a run's results and writes them size at a time.
type Queue struct {
	Run     model.EvaluationRun // the head: key, id, created at
	write   func(ctx context.Context, results []model.Result) error
	size    int
	pending []model.Result
	written int
}

// New returns the queue of run's results; write stores one batch of Size.
func New(run model.EvaluationRun, write func(ctx context.Context, results []model.Result) error) *Queue {
	return NewSized(run, Size, write)
}

// NewSized returns the queue of run's results written size at a time.
func NewSized(run model.EvaluationRun, size int, write func(ctx context.Context, results []model.Result) error) *Queue {
	return &Queue{Run: run, write: write, size: size}
}

// Add queues a result, writing a batch when enough have queued.
func (q *Queue) Add(ctx context.Context, r model.Result) error {
	q.pending = append(q.pending, r)
	if len(q.pending) >= q.size {
		return q.Flush(ctx)
	}
	return nil
}

// Written is how many results were added so far.
func (q *Queue) Written() int { return q.written + len(q.pending) }

// ID is the run's id.
func (q *Queue) ID() string { return q.Run.ID }

// Take hands the queued results to the caller, which writes them itself
// (the last batch of a run, written with its final status).
func (q *Queue) Take() []model.Result {
	p := q.pending
	q.written += len(p)
	q.pending = nil
	return p
}

// Flush writes what is queued.
func (q *Queue) Flush(ctx context.Context) error {
	if len(q.pending) == 0 {
		return nil
	}
	if err := q.write(ctx, q.pending); err != nil {
		return err
	}
	q.written += len(q.pending)
	q.pending = q.pending[:0]
	return nil
}
