package eventstream_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/eventstream"
	"github.com/lfcli/lf/pkg/eventstream/natstest"
	"github.com/lfcli/lf/pkg/store"
)

func event(tenant string, i int) string {
	ts := time.Date(2026, 4, 16, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	return fmt.Sprintf(`{"timestamp":%q,"tenant_id":%q,"agent_id":"ag%d","session_id":"s%d","method":"tools/call","tool":"read_file","decision":"allow","request_id":"r%d"}`,
		ts.Format(time.RFC3339Nano), tenant, i%5, i%3, i)
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "lf.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func publish(t *testing.T, js jetstream.JetStream, subject, data string) {
	t.Helper()
	if _, err := js.Publish(context.Background(), subject, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

// run consumes in the background until the returned stop is called.
func run(t *testing.T, opt eventstream.Options, ing eventstream.Ingester) (*eventstream.Consumer, func()) {
	t.Helper()
	c, err := eventstream.Dial(context.Background(), opt, ing)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	stop := func() {
		cancel()
		<-done
		c.Close()
	}
	t.Cleanup(stop)
	return c, stop
}

func waitStats(t *testing.T, c *eventstream.Consumer, what string, cond func(eventstream.Stats) bool) eventstream.Stats {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := c.Stats()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: stats %+v", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Messages of one event, a JSON array and NDJSON are stored; messages that
// are not events are rejected without stopping the others; a restarted
// consumer resumes after what it acknowledged.
func TestConsume(t *testing.T) {
	js, stream, prefix := natstest.Stream(t)
	url := natstest.URL(t)
	st := openStore(t)
	opt := eventstream.Options{URL: url, Stream: stream, SubjectPrefix: prefix, CreateStream: true, Batch: 7}
	c, stop := run(t, opt, agentrisk.NewEngine(st))
	for i := range 20 {
		publish(t, js, prefix+".t1", event("t1", i))
	}
	publish(t, js, prefix+".t2", "["+event("t2", 100)+","+event("t2", 101)+"]")
	publish(t, js, prefix+".t2", event("t2", 102)+"\n"+event("t2", 103)+"\n")
	publish(t, js, prefix+".t2", `{"not json`)
	publish(t, js, prefix+".t2", event("t1", 104)) // tenant of another subject
	publish(t, js, prefix+".t1", event("t1", 3))   // a duplicate event
	s := waitStats(t, c, "all messages handled", func(s eventstream.Stats) bool { return s.Messages+s.Rejected == 25 })
	if s != (eventstream.Stats{Messages: 23, Events: 25, New: 24, Duplicates: 1, Rejected: 2}) {
		t.Fatalf("stats %+v, want 23 messages of 25 events, 24 new, 1 duplicate, 2 rejected", s)
	}
	for tenant, want := range map[string]int{"t1": 5, "t2": 4} {
		n, err := st.CountAgents(context.Background(), tenant)
		if err != nil || n != want {
			t.Errorf("tenant %s: %d agents, %v; want %d", tenant, n, err, want)
		}
	}
	stop()

	for i := 200; i < 210; i++ {
		publish(t, js, prefix+".t1", event("t1", i))
	}
	c2, _ := run(t, opt, agentrisk.NewEngine(st))
	s = waitStats(t, c2, "the new messages handled", func(s eventstream.Stats) bool { return s.Messages == 10 })
	time.Sleep(300 * time.Millisecond)
	if s = c2.Stats(); s.Messages != 10 || s.New != 10 || s.Duplicates != 0 {
		t.Fatalf("after a restart: %+v, want only the 10 new messages", s)
	}
}

// failingIngester fails its first calls, as a store that is down would.
type failingIngester struct {
	fails atomic.Int32
	next  eventstream.Ingester
}

func (f *failingIngester) Ingest(ctx context.Context, evs []agentrisk.Event) (agentrisk.IngestResult, error) {
	if f.fails.Add(-1) >= 0 {
		return agentrisk.IngestResult{}, errors.New("store unavailable")
	}
	return f.next.Ingest(ctx, evs)
}

// Messages are acknowledged only after the store committed their events: a
// failed ingest leaves them to be redelivered, and they are stored once.
func TestAckAfterCommit(t *testing.T) {
	js, stream, prefix := natstest.Stream(t)
	st := openStore(t)
	ing := &failingIngester{next: agentrisk.NewEngine(st)}
	ing.fails.Store(2)
	var logs strings.Builder
	opt := eventstream.Options{
		URL: natstest.URL(t), Stream: stream, SubjectPrefix: prefix, CreateStream: true,
		AckWait: time.Second, Logf: func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) },
	}
	c, _ := run(t, opt, ing)
	for i := range 30 {
		publish(t, js, prefix+".t1", event("t1", i))
	}
	// Had the failed batches been acknowledged, their events would be lost.
	// (A batch stored but acknowledged after AckWait, on a loaded machine,
	// comes back and is counted as duplicates: at least once, stored once.)
	s := waitStats(t, c, "30 events stored", func(s eventstream.Stats) bool { return s.New >= 30 })
	if s.New != 30 || s.Messages != s.New+s.Duplicates {
		t.Fatalf("stats %+v, want 30 new events, every other delivery a duplicate", s)
	}
	if !strings.Contains(logs.String(), "not stored (redelivered") {
		t.Errorf("the failed ingest was not logged:\n%s", logs.String())
	}
	cons, err := js.Consumer(context.Background(), stream, eventstream.DefaultDurable)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.NumPending != 0 || info.NumAckPending != 0 {
		t.Fatalf("consumer: %d pending, %d waiting for an ack; want 0 and 0", info.NumPending, info.NumAckPending)
	}
}

func TestCheckURL(t *testing.T) {
	for _, u := range []string{"nats://127.0.0.1:4222", "tls://nats.example.com:4222", "nats://user:pw@host:4222"} {
		if err := eventstream.CheckURL(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"http://host:4222", "127.0.0.1:4222", "nats://", "nats://user:secret@"} {
		err := eventstream.CheckURL(u)
		if err == nil {
			t.Errorf("%s: accepted", u)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: message shows the password: %v", u, err)
		}
	}
}

// A message holding an event dated far into the future is rejected alone:
// the other messages of its batch are stored, and it is not redelivered.
func TestFutureEventRejectsItsMessageOnly(t *testing.T) {
	js, stream, prefix := natstest.Stream(t)
	url := natstest.URL(t)
	st := openStore(t)
	opt := eventstream.Options{URL: url, Stream: stream, SubjectPrefix: prefix, CreateStream: true, Batch: 10}
	_, stop := run(t, opt, agentrisk.NewEngine(st)) // creates the stream
	stop()
	for i := range 4 {
		publish(t, js, prefix+".t1", event("t1", i))
	}
	publish(t, js, prefix+".t1", event("t1", 10)+"\n"+`{"timestamp":"2099-01-01T00:00:00Z","tenant_id":"t1","agent_id":"ag9"}`)
	for i := 4; i < 8; i++ {
		publish(t, js, prefix+".t1", event("t1", i))
	}
	c, _ := run(t, opt, agentrisk.NewEngine(st))
	s := waitStats(t, c, "all messages handled", func(s eventstream.Stats) bool { return s.Messages+s.Rejected == 9 })
	if s != (eventstream.Stats{Messages: 8, Events: 8, New: 8, Rejected: 1}) {
		t.Fatalf("stats %+v, want 8 messages stored and the one with a 2099 event rejected", s)
	}
}
