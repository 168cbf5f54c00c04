package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Two counters sharing one coordinator (as two replicas share PostgreSQL)
// admit the limit together, however the requests are spread, and never
// more; a counter that stops receiving requests holds back at most 1.5
// chunks of the limit.
func TestSharedRateCounter(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "lf.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	coord, _ := st.Coordinator()
	const limit = 1000
	now := time.Now()
	for _, tc := range []struct {
		name    string
		pick    func(i int) int // which counter takes request i
		atLeast int
	}{
		{"alternating", func(i int) int { return i % 2 }, limit},
		{"90/10", func(i int) int {
			if i%10 == 0 {
				return 1
			}
			return 0
		}, limit},
		{"the first counter stops after 100 requests", func(i int) int {
			if i < 100 {
				return 0
			}
			return 1
		}, limit - limit/50*3/2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := [2]*rateCounter{newRateCounter(), newRateCounter()}
			for _, c := range cs {
				c.shared = coord
			}
			tenant := "t-" + tc.name
			admitted := 0
			for i := range 3 * limit {
				c := cs[tc.pick(i)]
				// The last call of decide is the decision (do calls it
				// again, as over the limit, when no slot is left).
				var allowed bool
				c.do(tenant, 3600, limit, now, func(used int) bool {
					allowed = used < limit
					return allowed
				})
				if allowed {
					admitted++
				}
				if i%50 == 0 {
					time.Sleep(time.Millisecond) // let background leases land
				}
			}
			time.Sleep(50 * time.Millisecond)
			if admitted > limit || admitted < tc.atLeast {
				t.Fatalf("admitted %d with a limit of %d, want %d..%d", admitted, limit, tc.atLeast, limit)
			}
		})
	}
}

// unreachable is a coordinator whose shared counter cannot be reached.
type unreachable struct{ store.Coordinator }

func (unreachable) Take(context.Context, string, time.Time, int64, int64) (int64, int64, error) {
	return 0, 0, errors.New("connection refused")
}

// While the shared counter cannot be reached a replica admits at most one
// chunk of the limit alone per second, and logs why.
func TestSharedRateCounterUnreachable(t *testing.T) {
	c := newRateCounter()
	c.shared = unreachable{}
	var mu sync.Mutex
	var logs []string
	c.logf = func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(f, a...))
	}
	const limit = 1000
	admitted := 0
	for range limit {
		var allowed bool
		c.do("t1", 3600, limit, time.Now(), func(used int) bool {
			allowed = used < limit
			return allowed
		})
		if allowed {
			admitted++
		}
	}
	if admitted != int(chunkOf(limit)) {
		t.Fatalf("admitted %d within a second of outage, want one chunk (%d)", admitted, chunkOf(limit))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) == 0 || !strings.Contains(logs[0], "connection refused") {
		t.Fatalf("logs: %q", logs)
	}
}
