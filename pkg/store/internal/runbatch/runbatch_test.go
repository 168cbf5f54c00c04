package runbatch

import (
	"context"
	"errors"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

func TestQueueWritesInBatches(t *testing.T) {
	var batches []int
	fail := false
	q := New(Head(model.EvaluationRun{ID: "r1", Results: []model.Result{{}}}), func(_ context.Context, rs []model.Result) error {
		if fail {
			return errors.New("down")
		}
		batches = append(batches, len(rs))
		return nil
	})
	if q.Run.Results != nil || q.Run.Status != model.StatusRunning || q.ID() != "r1" {
		t.Fatalf("head: %+v", q.Run)
	}
	ctx := context.Background()
	for i := 0; i < Size+3; i++ {
		if err := q.Add(ctx, model.Result{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if len(batches) != 2 || batches[0] != Size || batches[1] != 3 || q.Written() != Size+3 {
		t.Fatalf("batches %v written %d", batches, q.Written())
	}
	fail = true
	_ = q.Add(ctx, model.Result{})
	if err := q.Flush(ctx); err == nil || q.Written() != Size+4 {
		t.Fatalf("failed flush: err %v written %d", err, q.Written())
	}
}

func TestQueueTake(t *testing.T) {
	var batches []int
	q := NewSized(model.EvaluationRun{ID: "r1"}, 2, func(_ context.Context, rs []model.Result) error {
		batches = append(batches, len(rs))
		return nil
	})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := q.Add(ctx, model.Result{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := q.Take(); len(got) != 1 || len(batches) != 1 || batches[0] != 2 || q.Written() != 3 {
		t.Fatalf("took %d, batches %v, written %d", len(got), batches, q.Written())
	}
	if err := q.Flush(ctx); err != nil || len(batches) != 1 {
		t.Fatalf("flush after take: %v, batches %v", err, batches)
	}
}
