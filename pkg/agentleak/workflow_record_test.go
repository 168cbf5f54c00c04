package agentleak

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// TestRecordKeysMatchTaskKeys: the recorder's keys are TaskKeys' keys, for
// repeated scenario ids, repeated run ids and ids that look like generated
// keys.
func TestRecordKeysMatchTaskKeys(t *testing.T) {
	var want TaskKeys
	var got recordKeys
	ids := [][2]string{{"a@r#3", "x"}}
	for rep := 0; rep < 40; rep++ {
		for _, s := range []string{"a", "b", "a@r"} {
			ids = append(ids, [2]string{s, "r"}, [2]string{s, fmt.Sprint("r", rep%3)})
		}
	}
	for i, id := range ids {
		if w, g := want.Next(id[0], id[1]), got.Next(id[0], id[1]); w != g {
			t.Fatalf("trace %d (%s, %s): key %q, TaskKeys gives %q", i, id[0], id[1], g, w)
		}
	}
}

// fakeWriter is a run writer that keeps the task keys it is given and
// fails from the failAt-th result on (never when failAt is 0).
type fakeWriter struct {
	tasks  []string
	failAt int
}

func (f *fakeWriter) Add(_ context.Context, r model.Result) error {
	if f.failAt > 0 && len(f.tasks)+1 >= f.failAt {
		return errors.New("disk full")
	}
	f.tasks = append(f.tasks, r.TaskSpecificationKey)
	return nil
}
func (f *fakeWriter) Written() int                         { return len(f.tasks) }
func (f *fakeWriter) ID() string                           { return "run" }
func (f *fakeWriter) Finish(context.Context, string) error { return nil }
func (f *fakeWriter) Abort(context.Context) error          { return nil }

// TestRecorderBatches: results reach the writer in order, the last partial
// batch included; after the writer fails, the scan is told to stop and wait
// returns the writer's error.
func TestRecorderBatches(t *testing.T) {
	ctx := context.Background()
	w := &fakeWriter{}
	rec := startRecorder(ctx, w)
	const n = 3*recordBatch + 5
	for i := 0; i < n; i++ {
		if err := rec.add(&Result{ScenarioID: fmt.Sprint("s", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.wait(); err != nil || len(w.tasks) != n || w.tasks[0] != "s0" || w.tasks[n-1] != fmt.Sprint("s", n-1) {
		t.Fatalf("wait = %v; %d tasks, first %v", err, len(w.tasks), w.tasks[:1])
	}

	failing := &fakeWriter{failAt: 10}
	rec = startRecorder(ctx, failing)
	var stopped error
	for i := 0; i < 100*recordBatch && stopped == nil; i++ {
		stopped = rec.add(&Result{ScenarioID: fmt.Sprint("s", i)})
	}
	if err := rec.wait(); !errors.Is(stopped, errRecording) || err == nil || err.Error() != "disk full" {
		t.Fatalf("after a failed write: add said %v, wait %v", stopped, err)
	}
}
