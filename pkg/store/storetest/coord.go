package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
)

// Coordinator checks a backend's coordinator (locks, notify/listen, shared
// counters) with two handles a and b on one store, as two replicas of lf
// serve would have.
func Coordinator(t *testing.T, a, b backend.Coordinator) {
	t.Run("lock", func(t *testing.T) { coordLock(t, a, b) })
	t.Run("notify", func(t *testing.T) { coordNotify(t, a, b) })
	t.Run("counters", func(t *testing.T) { coordCounters(t, a, b) })
}

// coordLock: a held lock is not granted to the other handle, other names
// are independent, Unlock closes Lost and frees the name.
func coordLock(t *testing.T, a, b backend.Coordinator) {
	ctx := context.Background()
	la, ok, err := a.TryLock(ctx, "test lock")
	if err != nil || !ok {
		t.Fatalf("TryLock on a free lock: ok=%v err=%v", ok, err)
	}
	if _, ok, err := b.TryLock(ctx, "test lock"); err != nil || ok {
		t.Fatalf("TryLock by another handle on a held lock: ok=%v err=%v, want false", ok, err)
	}
	lo, ok, err := b.TryLock(ctx, "other lock")
	if err != nil || !ok {
		t.Fatalf("TryLock on another name: ok=%v err=%v", ok, err)
	}
	lo.Unlock(ctx)
	if err := la.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-la.Lost():
	default:
		t.Fatal("Lost is not closed after Unlock")
	}
	lb, ok, err := b.TryLock(ctx, "test lock")
	if err != nil || !ok {
		t.Fatalf("TryLock after Unlock: ok=%v err=%v", ok, err)
	}
	lb.Unlock(ctx)
}

// coordNotify: notifications reach a listener on their channel only, in
// order, and the listener's channel closes after Close.
func coordNotify(t *testing.T, a, b backend.Coordinator) {
	ctx := context.Background()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, err := b.Listen(lctx, "lf_test_channel")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i, p := range []string{"one", "two", `{"k":"three"}`} {
		if err := a.Notify(ctx, "lf_test_channel", p); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := a.Notify(ctx, "lf_other_channel", "not for b"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, want := range []string{"one", "two", `{"k":"three"}`} {
		select {
		case n := <-l.C():
			if n.Payload != want || n.Channel != "lf_test_channel" || n.Missed {
				t.Fatalf("got %+v, want payload %q on lf_test_channel", n, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("notification %q not delivered within 5s", want)
		}
	}
	l.Close()
	for range l.C() { // closed after Close
	}
}

// coordCounters: shared counters grant up to the limit across handles,
// also under concurrent takers.
func coordCounters(t *testing.T, a, b backend.Coordinator) {
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	g, total, err := a.Take(ctx, "test/k", exp, 0, 10)
	if err != nil || g != 0 || total != 0 {
		t.Fatalf("Take 0 of a new counter = %d, %d, %v; want 0, 0", g, total, err)
	}
	if g, total, _ = a.Take(ctx, "test/k", exp, 4, 10); g != 4 || total != 4 {
		t.Fatalf("Take 4 = %d, %d; want 4, 4", g, total)
	}
	if g, total, _ = b.Take(ctx, "test/k", exp, 4, 10); g != 4 || total != 8 {
		t.Fatalf("Take 4 by b = %d, %d; want 4, 8", g, total)
	}
	if g, total, _ = a.Take(ctx, "test/k", exp, 4, 10); g != 2 || total != 10 {
		t.Fatalf("Take 4 near the limit = %d, %d; want 2, 10", g, total)
	}
	if g, total, _ = b.Take(ctx, "test/k", exp, 1, 10); g != 0 || total != 10 {
		t.Fatalf("Take at the limit = %d, %d; want 0, 10", g, total)
	}
	// Concurrent takes never grant more than the limit together.
	var mu sync.Mutex
	var sum int64
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		c := a
		if i%2 == 1 {
			c = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				g, _, err := c.Take(ctx, "test/concurrent", exp, 3, 100)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				sum += g
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if sum != 100 {
		t.Fatalf("8 concurrent takers of 3 x 20 with limit 100 were granted %d in total, want 100", sum)
	}
}

// AlertClaim checks AlertStates.Swap with two handles a and b on one
// store: while a's transaction has swapped an agent's state in (not yet
// committed), b's Swap of the same state waits and then sees a's state, so
// only a is told that the agent crossed.
func AlertClaim(t *testing.T, a, b backend.Backend) {
	ctx := context.Background()
	at := time.Date(2026, 4, 16, 14, 0, 0, 0, time.UTC)
	for round, want := range []bool{true, false, true} {
		inside, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 2)
		type answer struct{ prev, known bool }
		var ra, rb answer
		swap := func(st backend.Backend, out *answer, hold bool) {
			done <- st.Update(ctx, func(tx backend.Tx) error {
				s, err := tx.AlertStates(ctx)
				if err != nil {
					return err
				}
				defer s.Close()
				out.prev, out.known, err = s.Swap(ctx, "t1", "rule", "agent", want, at)
				if hold {
					close(inside)
					<-release
				}
				return err
			})
		}
		go swap(a, &ra, true)
		<-inside
		go swap(b, &rb, false)
		time.Sleep(200 * time.Millisecond) // b is now waiting for a
		close(release)
		for range 2 {
			if err := <-done; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		wantA := answer{prev: !want, known: round > 0}
		if ra != wantA {
			t.Errorf("round %d: the first Swap to %v saw %+v, want %+v", round, want, ra, wantA)
		}
		if rb != (answer{prev: want, known: true}) {
			t.Errorf("round %d: the concurrent second Swap to %v saw %+v, want the first one's state {prev:%v known:true}", round, want, rb, want)
		}
	}
}
