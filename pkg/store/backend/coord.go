package backend

import (
	"context"
	"time"
)

// Coordinator lets several processes serving one store work together (`lf
// serve` replicas on one PostgreSQL database): a named lock so that one of
// them at a time runs a job (the background recalculation), a notify/listen
// channel so that a change made through one is seen by the others (a
// tenant's risk config), and shared counters (rate limits across replicas).
//
// PostgreSQL implements it with session advisory locks on a dedicated
// connection, LISTEN/NOTIFY and an unlogged counter table; SQLite, whose
// store is served by one process, within the process (see
// pkg/store/sqlite/coord.go). A backend offers it by implementing the
// interface; pkg/store.Store.Coordinator returns it.
type Coordinator interface {
	// TryLock takes the named lock without waiting; ok is false when another
	// holder (in this process or another) has it. The lock is held until
	// Unlock or until the holder's session with the store ends: the process
	// dies (kill -9 included) or loses its connection. Lost is then closed
	// and another process may take the lock.
	TryLock(ctx context.Context, name string) (l Lock, ok bool, err error)

	// Notify sends payload (at most 7,000 bytes) on channel to every
	// listener of the store, in this process and in others, including the
	// sender's own listeners.
	Notify(ctx context.Context, channel, payload string) error

	// Listen subscribes to channel until ctx ends or Close. Notifications
	// sent while the listener was disconnected are lost: the listener then
	// delivers a Notification with Missed set, after which the receiver
	// must reload whatever it caches.
	Listen(ctx context.Context, channel string) (Listener, error)

	// Take adds up to n to the shared counter key without making it exceed
	// limit, and returns how much it added (0..n) and the counter's value
	// after the addition. A counter starts at 0; it may be forgotten after
	// expires (rate windows name their window in the key and expire when
	// it ends). Take with n = 0 reads the counter. Concurrent Takes never
	// grant more than limit in total.
	Take(ctx context.Context, key string, expires time.Time, n, limit int64) (granted, total int64, err error)
}

// Lock is a held named lock (see Coordinator.TryLock).
type Lock interface {
	// Lost is closed when the lock is no longer held: after Unlock, or when
	// the session holding it ended.
	Lost() <-chan struct{}
	// Unlock releases the lock; releasing a lost lock is not an error.
	Unlock(ctx context.Context) error
}

// Listener receives notifications (see Coordinator.Listen).
type Listener interface {
	// C delivers the notifications in the order they were sent; it is
	// closed when the listener stops.
	C() <-chan Notification
	Close() error
}

// Notification is one message on a channel, or (Missed) the sign that
// messages may have been lost while the listener was reconnecting.
type Notification struct {
	Channel string
	Payload string
	Missed  bool
}
