package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lfcli/lf/pkg/store/postgres"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
	"github.com/lfcli/lf/pkg/store/storetest"
)

func openTwice(t *testing.T) (dsn string, a, b *postgres.Store) {
	dsn = pgtest.New(t)
	open := func() *postgres.Store {
		st, err := postgres.Open(context.Background(), dsn, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return dsn, open(), open()
}

func TestCoordinator(t *testing.T) {
	_, a, b := openTwice(t)
	storetest.Coordinator(t, a, b)
}

// Of two replicas swapping one alert state at once, one claims the
// crossing.
func TestAlertClaim(t *testing.T) {
	_, a, b := openTwice(t)
	storetest.AlertClaim(t, a, b)
}

// terminateOthers ends every other session on the database, as a
// PostgreSQL restart or a dead network would.
func terminateOthers(t *testing.T, dsn string) {
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
}

// A lock whose session ends is lost for its holder and free for others;
// a listener whose session ends reconnects and reports Missed; the pool
// serves again without reopening the store.
func TestCoordinatorSessionLoss(t *testing.T) {
	dsn, a, b := openTwice(t)
	ctx := context.Background()
	la, ok, err := a.TryLock(ctx, "recalc")
	if err != nil || !ok {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, err := b.Listen(lctx, "lf_changes")
	if err != nil {
		t.Fatal(err)
	}
	terminateOthers(t, dsn)
	select {
	case <-la.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("the lock's session was terminated but Lost was not closed within 5s")
	}
	lb, ok, err := b.TryLock(ctx, "recalc")
	if err != nil || !ok {
		t.Fatalf("TryLock after the holder's session ended: ok=%v err=%v, want the lock", ok, err)
	}
	defer lb.Unlock(ctx)
	select {
	case n := <-l.C():
		if !n.Missed {
			t.Fatalf("first notification after the listener's session ended: %+v, want Missed", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no Missed notification within 10s of losing the listener's session")
	}
	if err := a.Notify(ctx, "lf_changes", "after"); err != nil {
		t.Fatalf("Notify through the pool after its sessions were terminated: %v", err)
	}
	select {
	case n := <-l.C():
		if n.Payload != "after" {
			t.Fatalf("got %+v, want payload after", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("notification after reconnecting not delivered within 5s")
	}
}
