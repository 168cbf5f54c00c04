package postgres

import (
	"context"
	"errors"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lfcli/lf/pkg/store/backend"
)

// The PostgreSQL coordinator (backend.Coordinator) of `lf serve` replicas:
//
//   - TryLock is a session advisory lock (pg_try_advisory_lock) held on a
//     connection of its own, outside the pool. When the holding process
//     dies its connection closes and the server releases the lock; the
//     holder checks its connection every lockCheck and closes Lost when it
//     fails (the server may have released the lock).
//   - Notify is pg_notify; Listen holds a connection of its own with LISTEN
//     and reconnects after losing it, then reports Missed.
//   - Take is one upsert on lf_coord.counters, an unlogged table (counters
//     are worth nothing after a crash) created on first use, in a schema of
//     its own so that it is not part of the store's tables (lf store copy
//     copies the store's schema).

var _ backend.Coordinator = (*Store)(nil)

// lockCheck is how often a lock holder checks that its session is alive.
const lockCheck = 500 * time.Millisecond

// sessionLockKey maps a lock name to the 64-bit advisory lock key.
func sessionLockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("lf:" + name))
	return int64(h.Sum64())
}

// connect opens a connection outside the pool, with the pool's settings.
func (s *Store) connect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, s.Pool.Config().ConnConfig.Copy())
}

// TryLock takes the named session advisory lock on a dedicated connection.
func (s *Store) TryLock(ctx context.Context, name string) (backend.Lock, bool, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, false, s.errf("lock "+name, err)
	}
	key := sessionLockKey(name)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
		conn.Close(context.Background())
		return nil, false, s.errf("lock "+name, err)
	}
	if !ok {
		conn.Close(context.Background())
		return nil, false, nil
	}
	l := &pgLock{conn: conn, key: key, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go l.watch()
	return l, true, nil
}

type pgLock struct {
	conn *pgx.Conn
	key  int64
	lost chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// watch pings the lock's connection until Unlock or a failed ping.
func (l *pgLock) watch() {
	defer close(l.done)
	t := time.NewTicker(lockCheck)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := l.conn.Ping(ctx)
		cancel()
		if err != nil {
			l.conn.Close(context.Background())
			l.once.Do(func() { close(l.lost) })
			return
		}
	}
}

func (l *pgLock) Lost() <-chan struct{} { return l.lost }

// Unlock releases the lock and closes its connection (which would release
// it anyway).
func (l *pgLock) Unlock(ctx context.Context) error {
	select {
	case <-l.stop:
		return nil
	default:
	}
	close(l.stop)
	<-l.done
	select {
	case <-l.lost:
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
	l.conn.Close(ctx)
	l.once.Do(func() { close(l.lost) })
	return nil
}

// Notify sends payload with pg_notify (delivered when the sending
// transaction commits: here at once).
func (s *Store) Notify(ctx context.Context, channel, payload string) error {
	if _, err := s.Pool.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, payload); err != nil {
		return s.errf("notify "+channel, err)
	}
	return nil
}

// Listen holds a dedicated connection listening on channel.
func (s *Store) Listen(ctx context.Context, channel string) (backend.Listener, error) {
	conn, err := s.listenConn(ctx, channel)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	l := &pgListener{s: s, channel: channel, out: make(chan backend.Notification), cancel: cancel}
	go l.run(lctx, conn)
	return l, nil
}

func (s *Store) listenConn(ctx context.Context, channel string) (*pgx.Conn, error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, s.errf("listen "+channel, err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, s.errf("listen "+channel, err)
	}
	return conn, nil
}

type pgListener struct {
	s       *Store
	channel string
	out     chan backend.Notification
	cancel  context.CancelFunc
}

// run waits for notifications; after losing the connection it reconnects
// (every second until it succeeds) and reports Missed.
func (l *pgListener) run(ctx context.Context, conn *pgx.Conn) {
	defer close(l.out)
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err == nil {
			select {
			case l.out <- backend.Notification{Channel: n.Channel, Payload: n.Payload}:
				continue
			case <-ctx.Done():
				return
			}
		}
		if ctx.Err() != nil {
			return
		}
		conn.Close(context.Background())
		conn = nil
		for conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			conn, _ = l.s.listenConn(ctx, l.channel)
		}
		select {
		case l.out <- backend.Notification{Channel: l.channel, Missed: true}:
		case <-ctx.Done():
			return
		}
	}
}

func (l *pgListener) C() <-chan backend.Notification { return l.out }

func (l *pgListener) Close() error {
	l.cancel()
	return nil
}

// coordCountersDDL creates the counter table of Take.
const coordCountersDDL = `CREATE SCHEMA IF NOT EXISTS lf_coord;
CREATE UNLOGGED TABLE IF NOT EXISTS lf_coord.counters (
	key     TEXT PRIMARY KEY,
	value   BIGINT NOT NULL,
	granted BIGINT NOT NULL,
	expires TIMESTAMPTZ NOT NULL
)`

var takes atomic.Int64

// Take adds up to n to counter key without passing limit, in one upsert:
// the SET expressions see the row before the update, and the row lock makes
// concurrent Takes of one key wait for each other.
func (s *Store) Take(ctx context.Context, key string, expires time.Time, n, limit int64) (granted, total int64, err error) {
	const q = `INSERT INTO lf_coord.counters AS c (key, value, granted, expires)
		VALUES ($1, LEAST(GREATEST($3, 0), $2), LEAST(GREATEST($3, 0), $2), $4)
		ON CONFLICT (key) DO UPDATE SET
			value = c.value + LEAST(GREATEST($3 - c.value, 0), $2),
			granted = LEAST(GREATEST($3 - c.value, 0), $2),
			expires = GREATEST(c.expires, excluded.expires)
		RETURNING granted, value`
	for attempt := 0; ; attempt++ {
		err = s.Pool.QueryRow(ctx, q, key, n, limit, expires).Scan(&granted, &total)
		var pe *pgconn.PgError
		if attempt == 0 && errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000") { // undefined table or schema
			if err := s.createCounters(ctx); err != nil {
				return 0, 0, err
			}
			continue
		}
		break
	}
	if err != nil {
		return 0, 0, s.errf("counter "+key, err)
	}
	if takes.Add(1)%4096 == 0 {
		s.Pool.Exec(ctx, `DELETE FROM lf_coord.counters WHERE expires < now()`)
	}
	return granted, total, nil
}

// createCounters creates the counter table under a transaction-scoped
// advisory lock (two replicas creating it at once would otherwise collide).
// Even so a replica may still find the schema created under its feet (the
// IF NOT EXISTS check can miss a creation committed while it waited): a
// duplicate is success.
func (s *Store) createCounters(ctx context.Context) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, xactLockSQL, sessionLockKey("coord counters")); err != nil {
			return s.errf("counter table", err)
		}
		if _, err := tx.Exec(ctx, coordCountersDDL); err != nil {
			return s.errf("counter table", err)
		}
		return nil
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P06" || pe.Code == "42P07") {
		return nil // unique_violation on the catalog, duplicate_schema, duplicate_table
	}
	return err
}
