package server

import (
	"sync"
	"time"
)

// rateCounter counts each tenant's requests in fixed windows of the tenant's
// rateLimit.windowSeconds, aligned to the Unix epoch. The verdict handler
// reads the count used so far, decides, and counts the request unless the
// rate stage blocked it, all under the tenant's lock so that concurrent
// requests never both take the last slot.
type rateCounter struct {
	mu      sync.Mutex
	tenants map[string]*tenantWindow
}

type tenantWindow struct {
	mu     sync.Mutex
	window int64 // window index: unix seconds / window length
	length int
	count  int
}

func newRateCounter() *rateCounter { return &rateCounter{tenants: map[string]*tenantWindow{}} }

func (c *rateCounter) tenant(id string) *tenantWindow {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.tenants[id]
	if w == nil {
		w = &tenantWindow{}
		c.tenants[id] = w
	}
	return w
}

// do runs decide with the number of requests tenant already used in the
// current window of windowSeconds (0 = no limiter: always 0) and counts the
// request when decide says so.
func (c *rateCounter) do(tenant string, windowSeconds int, now time.Time, decide func(used int) (count bool)) {
	if windowSeconds <= 0 {
		decide(0)
		return
	}
	w := c.tenant(tenant)
	w.mu.Lock()
	defer w.mu.Unlock()
	idx := now.Unix() / int64(windowSeconds)
	if idx != w.window || w.length != windowSeconds {
		w.window, w.length, w.count = idx, windowSeconds, 0
	}
	if decide(w.count) {
		w.count++
	}
}
