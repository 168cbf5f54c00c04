package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
)

// The SQLite coordinator (backend.Coordinator) works within one process: a
// SQLite store is served by one `lf serve` process, and replicas need a
// PostgreSQL store. Locks, channels and counters live in memory, shared by
// every Store this process opened on the same file (an in-memory store has
// its own), so that tests and embedders opening one file twice still
// coordinate. A lock "dies with the process" trivially: it is process
// memory. Two processes on one SQLite file do not see each other's locks or
// notifications; that set-up is not supported for serving.

var _ backend.Coordinator = (*Store)(nil)

// hubs holds the coordination state of every store file this process opened.
var hubs = struct {
	sync.Mutex
	m map[string]*hub
}{m: map[string]*hub{}}

type hub struct {
	mu        sync.Mutex
	locks     map[string]*memLock
	listeners map[string]map[*memListener]bool
	counters  map[string]memCounter
	takes     int
}

type memCounter struct {
	v       int64
	expires time.Time
}

func (s *Store) hub() *hub {
	key := s.Path
	if key == ":memory:" {
		key = fmt.Sprintf("memory:%p", s)
	} else if abs, err := filepath.Abs(key); err == nil {
		key = abs
	}
	hubs.Lock()
	defer hubs.Unlock()
	h := hubs.m[key]
	if h == nil {
		h = &hub{locks: map[string]*memLock{}, listeners: map[string]map[*memListener]bool{}, counters: map[string]memCounter{}}
		hubs.m[key] = h
	}
	return h
}

// TryLock takes the named lock if no one in this process holds it.
func (s *Store) TryLock(ctx context.Context, name string) (backend.Lock, bool, error) {
	h := s.hub()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.locks[name] != nil {
		return nil, false, nil
	}
	l := &memLock{h: h, name: name, lost: make(chan struct{})}
	h.locks[name] = l
	return l, true, nil
}

type memLock struct {
	h    *hub
	name string
	once sync.Once
	lost chan struct{}
}

func (l *memLock) Lost() <-chan struct{} { return l.lost }

func (l *memLock) Unlock(context.Context) error {
	l.once.Do(func() {
		l.h.mu.Lock()
		if l.h.locks[l.name] == l {
			delete(l.h.locks, l.name)
		}
		l.h.mu.Unlock()
		close(l.lost)
	})
	return nil
}

// Notify delivers payload to this process's listeners of channel.
func (s *Store) Notify(ctx context.Context, channel, payload string) error {
	h := s.hub()
	h.mu.Lock()
	defer h.mu.Unlock()
	for l := range h.listeners[channel] {
		l.push(backend.Notification{Channel: channel, Payload: payload})
	}
	return nil
}

// Listen subscribes to channel within this process.
func (s *Store) Listen(ctx context.Context, channel string) (backend.Listener, error) {
	h := s.hub()
	l := &memListener{out: make(chan backend.Notification), wake: make(chan struct{}, 1), done: make(chan struct{})}
	h.mu.Lock()
	if h.listeners[channel] == nil {
		h.listeners[channel] = map[*memListener]bool{}
	}
	h.listeners[channel][l] = true
	h.mu.Unlock()
	l.stop = func() {
		h.mu.Lock()
		delete(h.listeners[channel], l)
		h.mu.Unlock()
	}
	go l.pump(ctx)
	return l, nil
}

// memListener queues notifications without bound (Notify never blocks on
// a slow receiver) and hands them out in order.
type memListener struct {
	mu    sync.Mutex
	queue []backend.Notification
	out   chan backend.Notification
	wake  chan struct{}
	done  chan struct{}
	once  sync.Once
	stop  func()
}

func (l *memListener) push(n backend.Notification) {
	l.mu.Lock()
	l.queue = append(l.queue, n)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *memListener) pump(ctx context.Context) {
	defer close(l.out)
	defer l.stop()
	for {
		l.mu.Lock()
		var next *backend.Notification
		if len(l.queue) > 0 {
			n := l.queue[0]
			l.queue = l.queue[1:]
			next = &n
		}
		l.mu.Unlock()
		if next == nil {
			select {
			case <-l.wake:
				continue
			case <-ctx.Done():
				return
			case <-l.done:
				return
			}
		}
		select {
		case l.out <- *next:
		case <-ctx.Done():
			return
		case <-l.done:
			return
		}
	}
}

func (l *memListener) C() <-chan backend.Notification { return l.out }

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Take adds up to n to the in-process counter key without passing limit.
func (s *Store) Take(ctx context.Context, key string, expires time.Time, n, limit int64) (granted, total int64, err error) {
	h := s.hub()
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	if h.takes++; h.takes%1024 == 0 {
		for k, c := range h.counters {
			if now.After(c.expires) {
				delete(h.counters, k)
			}
		}
	}
	c := h.counters[key]
	if now.After(c.expires) {
		c = memCounter{}
	}
	granted = min(max(limit-c.v, 0), n)
	c.v += granted
	c.expires = expires
	h.counters[key] = c
	return granted, c.v, nil
}
