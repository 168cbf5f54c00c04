// Command loadgen is an open-loop load generator for POST /verdict of
// lf serve: it sends requests at a fixed rate regardless of how fast the
// server answers, and measures each latency from the moment the request was
// due (so a stalled server shows up as latency instead of a lower rate).
// It only talks to loopback addresses and is bounded in rate, duration and
// requests in flight.
//
//	go run ./pkg/server/loadgen -addr 127.0.0.1:8080 -key $LF_KEY_ACME -tenant acme -rate 5000 -duration 20s
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "lf serve address (loopback only)")
	key := flag.String("key", os.Getenv("LF_KEY"), "bearer API key (default $LF_KEY)")
	tenant := flag.String("tenant", "acme", "tenant id")
	agents := flag.Int("agents", 50, "number of distinct agent ids (agent-0 .. agent-N-1); use -agent for one")
	agent := flag.String("agent", "", "a single agent id")
	method := flag.String("method", "tools/call", "request method")
	rate := flag.Int("rate", 5000, "requests per second (at most 50000)")
	duration := flag.Duration("duration", 20*time.Second, "measured duration (at most 5m)")
	warmup := flag.Duration("warmup", 2*time.Second, "unmeasured warm-up at the same rate")
	maxInFlight := flag.Int("max-inflight", 2000, "requests in flight before new ones count as errors")
	flag.Parse()

	if err := run(*addr, *key, *tenant, *agent, *method, *agents, *rate, *duration, *warmup, *maxInFlight); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
}

func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return err
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address; loadgen only loads local servers", addr)
		}
	}
	return nil
}

type result struct {
	lat time.Duration
	ok  bool
}

func run(addr, key, tenant, agent, method string, agents, rate int, duration, warmup time.Duration, maxInFlight int) error {
	if err := loopback(addr); err != nil {
		return err
	}
	if rate < 1 || rate > 50000 {
		return fmt.Errorf("-rate must be in 1..50000")
	}
	if duration <= 0 || duration > 5*time.Minute || warmup < 0 || warmup > time.Minute {
		return fmt.Errorf("-duration must be in (0, 5m] and -warmup in [0, 1m]")
	}
	if agents < 1 {
		agents = 1
	}
	bodies := make([][]byte, agents)
	for i := range bodies {
		id := agent
		if id == "" {
			id = fmt.Sprintf("agent-%d", i)
		}
		bodies[i] = []byte(fmt.Sprintf(`{"tenantId":%q,"agentId":%q,"method":%q}`, tenant, id, method))
	}
	tr := &http.Transport{MaxIdleConns: maxInFlight, MaxIdleConnsPerHost: maxInFlight, IdleConnTimeout: time.Minute, DisableCompression: true}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	url := "http://" + addr + "/verdict"

	// One probe, so that a wrong key or tenant fails loudly instead of as 100% errors.
	if status, body, err := send(client, url, key, bodies[0]); err != nil {
		return err
	} else if status != 200 {
		return fmt.Errorf("probe: HTTP %d: %s", status, body)
	}

	total := int((warmup + duration).Seconds() * float64(rate))
	warm := int(warmup.Seconds() * float64(rate))
	interval := time.Second / time.Duration(rate)
	results := make([]result, total)
	var inflight atomic.Int64
	var overload atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range total {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		if inflight.Load() >= int64(maxInFlight) {
			overload.Add(1)
			results[i] = result{lat: time.Since(due), ok: false}
			continue
		}
		inflight.Add(1)
		wg.Add(1)
		go func(i int, due time.Time) {
			defer wg.Done()
			defer inflight.Add(-1)
			status, _, err := send(client, url, key, bodies[i%len(bodies)])
			results[i] = result{lat: time.Since(due), ok: err == nil && status == 200}
		}(i, due)
	}
	wg.Wait()
	elapsed := time.Since(start)

	measured := results[warm:]
	lats := make([]time.Duration, 0, len(measured))
	errs := 0
	for _, r := range measured {
		if !r.ok {
			errs++
		}
		lats = append(lats, r.lat)
	}
	slices.Sort(lats)
	pct := func(p float64) time.Duration {
		if len(lats) == 0 {
			return 0
		}
		i := int(p * float64(len(lats)-1))
		return lats[i]
	}
	fmt.Printf("target %d req/s for %s (+%s warm-up), %d requests measured, %d agents\n", rate, duration, warmup, len(measured), len(bodies))
	fmt.Printf("achieved %.0f req/s overall\n", float64(total)/elapsed.Seconds())
	fmt.Printf("errors %d (%d refused for too many in flight)\n", errs, overload.Load())
	fmt.Printf("latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", r(pct(0.50)), r(pct(0.90)), r(pct(0.99)), r(pct(0.999)), r(pct(1)))
	if errs > 0 {
		os.Exit(1)
	}
	return nil
}

func r(d time.Duration) string { return d.Round(time.Microsecond).String() }

func send(c *http.Client, url, key string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, b, nil
}
