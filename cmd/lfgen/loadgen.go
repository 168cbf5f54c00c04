// loadgen (lfgen loadgen) is an open-loop load generator for POST /verdict of
// lf serve: it sends requests at a fixed rate regardless of how fast the
// server answers, and measures each latency from the moment the request was
// due (so a stalled server shows up as latency instead of a lower rate).
// It also reports the service latency (from writing a request to reading its
// response), which leaves out the generator's own timer lag: on a VM whose
// sleeps overshoot by a millisecond, the latency from schedule mostly
// measures the generator. It only talks to loopback addresses and is bounded in rate, duration and
// connections.
//
//	go run ./cmd/lfgen loadgen -addr 127.0.0.1:8080 -key $LF_KEY_ACME -tenant acme -rate 5000 -duration 20s
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func loadgenCmd(args []string) {
	fs := flag.NewFlagSet("loadgen", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "lf serve address (loopback only)")
	key := fs.String("key", os.Getenv("LF_KEY"), "bearer API key (default $LF_KEY)")
	tenant := fs.String("tenant", "acme", "tenant id")
	agents := fs.Int("agents", 50, "number of distinct agent ids (agent-0 .. agent-N-1); use -agent for one")
	agent := fs.String("agent", "", "a single agent id")
	method := fs.String("method", "tools/call", "request method")
	rate := fs.Int("rate", 5000, "requests per second (at most 50000)")
	duration := fs.Duration("duration", 20*time.Second, "measured duration (at most 5m)")
	warmup := fs.Duration("warmup", 2*time.Second, "unmeasured warm-up at the same rate")
	conns := fs.Int("conns", 64, "keep-alive connections (at most 1000)")
	replicas := fs.String("replicas", "", "comma-separated `ADDRS` of lf serve replicas: the connections are spread over them in turn (overrides -addr)")
	ingestRate := fs.Int("ingest-rate", 0, "also ingest this many events per second into the tenant (POST /tenants/{tenant}/events) for the same agents, at most 100000")
	ingestBatch := fs.Int("ingest-batch", 100, "events per ingest request")
	probe := fs.Duration("probe", 0, "every this often, ingest one injection event for a new agent and poll its verdict until it reflects it: the event-to-verdict freshness (e.g. 100ms)")
	fs.Parse(args)
	if *replicas != "" {
		loadAddrs = strings.Split(*replicas, ",")
		*addr = loadAddrs[0]
		for _, a := range loadAddrs {
			if err := loopback(a); err != nil {
				fmt.Fprintln(os.Stderr, "loadgen:", err)
				os.Exit(2)
			}
		}
	}

	side := &sideLoad{ingestRate: *ingestRate, ingestBatch: *ingestBatch, probe: *probe}
	if err := runLoad(*addr, *key, *tenant, *agent, *method, *agents, *rate, *duration, *warmup, *conns, side); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
}

// loadAddrs are the replicas of -replicas (connection i goes to
// loadAddrs[i % len]); empty: every connection goes to -addr.
var loadAddrs []string

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

type loadResult struct {
	lat time.Duration // from when the request was due (includes generator lag and queueing)
	svc time.Duration // from writing the request to reading the whole response
	ok  bool
}

// loadPlan is one run of the verdict load: what to send, how often, and
// over how many connections.
type loadPlan struct {
	addr, key      string
	rate, conns    int
	duration, warm time.Duration
	reqs           [][]byte // prepared HTTP requests, one per agent id
	total, warmN   int      // requests in all, and in the warm-up
}

func runLoad(addr, key, tenant, agent, method string, agents, rate int, duration, warmup time.Duration, conns int, side *sideLoad) error {
	if err := checkLoadArgs(addr, rate, duration, warmup, conns, side); err != nil {
		return err
	}
	agents = max(agents, 1)
	bodies := verdictBodies(tenant, agent, method, agents)
	// One probe through net/http, so that a wrong key or tenant fails
	// loudly instead of as 100% errors.
	client := &http.Client{Timeout: 10 * time.Second}
	if status, body, err := send(client, "http://"+addr+"/verdict", key, bodies[0]); err != nil {
		return err
	} else if status != 200 {
		return fmt.Errorf("probe: HTTP %d: %s", status, body)
	}
	plan := &loadPlan{addr: addr, key: key, rate: rate, conns: conns, duration: duration, warm: warmup}
	for _, b := range bodies {
		plan.reqs = append(plan.reqs, []byte(fmt.Sprintf("POST /verdict HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, key, len(b), b)))
	}
	plan.total = int((warmup + duration).Seconds() * float64(rate))
	plan.warmN = int(warmup.Seconds() * float64(rate))

	side.addr, side.key, side.tenant, side.agents = addr, key, tenant, agents
	stopSide := side.start(warmup, warmup+duration)
	cpu0 := processCPU()
	results, connErrs, elapsed := plan.run()
	cpu := processCPU() - cpu0
	errs := plan.report(results, connErrs, elapsed, len(bodies), cpu)
	if err := stopSide(); err != nil {
		return err
	}
	if errs > 0 {
		os.Exit(1)
	}
	return nil
}

// checkLoadArgs bounds the flags: loopback only, rate, duration,
// connections and the side load.
func checkLoadArgs(addr string, rate int, duration, warmup time.Duration, conns int, side *sideLoad) error {
	if err := loopback(addr); err != nil {
		return err
	}
	switch {
	case rate < 1 || rate > 50000:
		return fmt.Errorf("-rate must be in 1..50000")
	case duration <= 0 || duration > 5*time.Minute || warmup < 0 || warmup > time.Minute:
		return fmt.Errorf("-duration must be in (0, 5m] and -warmup in [0, 1m]")
	case conns < 1 || conns > 1000:
		return fmt.Errorf("-conns must be in 1..1000")
	case side.ingestRate < 0 || side.ingestRate > 100000 || side.ingestBatch < 1 || side.ingestBatch > 10000:
		return fmt.Errorf("-ingest-rate must be in 0..100000 and -ingest-batch in 1..10000")
	case side.probe < 0 || (side.probe > 0 && side.probe < 10*time.Millisecond):
		return fmt.Errorf("-probe must be 0 or at least 10ms")
	}
	return nil
}

// verdictBodies are the request bodies, one per agent id.
func verdictBodies(tenant, agent, method string, agents int) [][]byte {
	bodies := make([][]byte, agents)
	for i := range bodies {
		id := agent
		if id == "" {
			id = fmt.Sprintf("agent-%d", i)
		}
		bodies[i] = []byte(fmt.Sprintf(`{"tenantId":%q,"agentId":%q,"method":%q}`, tenant, id, method))
	}
	return bodies
}

// loadJob is one request, due at due.
type loadJob struct {
	i   int
	due time.Time
}

// run sends the requests over conns keep-alive connections with a minimal
// HTTP/1.1 client (much cheaper than net/http, which matters when the
// generator shares the CPU with the server). The scheduler queues each
// request when it is due; a connection takes the next queued request as
// soon as it is free, so a slow server shows up as queueing latency.
func (p *loadPlan) run() ([]loadResult, int64, time.Duration) {
	results := make([]loadResult, p.total)
	queue := make(chan loadJob, p.total)
	var wg sync.WaitGroup
	var connErrs atomic.Int64
	for ci := range p.conns {
		connAddr := p.addr
		if len(loadAddrs) > 0 {
			connAddr = loadAddrs[ci%len(loadAddrs)]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.worker(connAddr, queue, results, &connErrs)
		}()
	}
	start := time.Now()
	p.schedule(start, queue)
	close(queue)
	wg.Wait()
	return results, connErrs.Load(), time.Since(start)
}

// schedule queues every request at its due time. It sleeps until the next
// request is due and then queues all that are due by then: a sleep on this
// VM overshoots by up to a millisecond, and sleeping once per request
// would add that lag to every request instead of once per batch.
func (p *loadPlan) schedule(start time.Time, queue chan<- loadJob) {
	interval := time.Second / time.Duration(p.rate)
	for i := 0; i < p.total; {
		due := start.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		now := time.Now()
		for ; i < p.total; i++ {
			due := start.Add(time.Duration(i) * interval)
			if due.After(now) {
				break
			}
			queue <- loadJob{i, due}
		}
	}
}

// worker runs one connection: it takes the next due request, sends it and
// records its latencies (reconnecting after an error).
func (p *loadPlan) worker(addr string, queue <-chan loadJob, results []loadResult, connErrs *atomic.Int64) {
	var c *httpConn
	defer func() {
		if c != nil {
			c.close()
		}
	}()
	for j := range queue {
		if c == nil {
			var err error
			if c, err = dial(addr); err != nil {
				connErrs.Add(1)
				results[j.i] = loadResult{lat: time.Since(j.due)}
				continue
			}
		}
		sent := time.Now()
		status, err := c.do(p.reqs[j.i%len(p.reqs)])
		end := time.Now()
		results[j.i] = loadResult{lat: end.Sub(j.due), svc: end.Sub(sent), ok: err == nil && status == 200}
		if err != nil {
			connErrs.Add(1)
			c.close()
			c = nil
		}
	}
}

// report prints the figures of the measured requests (after the warm-up)
// and returns the number of failed ones.
func (p *loadPlan) report(results []loadResult, connErrs int64, elapsed time.Duration, agents int, cpu time.Duration) int {
	measured := results[p.warmN:]
	lats := make([]time.Duration, 0, len(measured))
	svcs := make([]time.Duration, 0, len(measured))
	errs := 0
	for _, r := range measured {
		if !r.ok {
			errs++
		}
		lats = append(lats, r.lat)
		svcs = append(svcs, r.svc)
	}
	fmt.Printf("target %d req/s for %s (+%s warm-up), %d requests measured, %d agents, %d connections\n", p.rate, p.duration, p.warm, len(measured), agents, p.conns)
	fmt.Printf("achieved %.0f req/s overall\n", float64(p.total)/elapsed.Seconds())
	fmt.Printf("errors %d (%d connection errors)\n", errs, connErrs)
	fmt.Printf("service latency (request written -> response read): %s\n", summary(svcs))
	fmt.Printf("latency from schedule (adds generator timer lag and waiting for a free connection): %s\n", summary(lats))
	if cpu > 0 {
		fmt.Printf("generator CPU %s (%.1f µs per request, side load included)\n", cpu.Round(time.Millisecond), float64(cpu.Microseconds())/float64(p.total))
	}
	return errs
}

func summary(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	slices.Sort(ds)
	pct := func(p float64) string { return r(ds[int(p*float64(len(ds)-1))]) }
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  p99.9 %s  max %s", pct(0.50), pct(0.90), pct(0.99), pct(0.999), pct(1))
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

// httpConn is one keep-alive HTTP/1.1 connection that sends a prepared
// request and reads the status and the body (Content-Length framed, as
// lf serve answers).
type httpConn struct {
	c net.Conn
	r *bufio.Reader
}

func dial(addr string) (*httpConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &httpConn{c: c, r: bufio.NewReaderSize(c, 16<<10)}, nil
}

func (h *httpConn) close() { h.c.Close() }

// atoi reads a decimal number; -1 when b is not one.
func atoi(b []byte) int {
	if len(b) == 0 || len(b) > 9 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func (h *httpConn) do(req []byte) (int, error) {
	status, _, err := h.exchange(req, false)
	return status, err
}

// doBody is do that also returns the body.
func (h *httpConn) doBody(req []byte) (int, []byte, error) {
	return h.exchange(req, true)
}

func (h *httpConn) exchange(req []byte, keep bool) (int, []byte, error) {
	_ = h.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := h.c.Write(req); err != nil {
		return 0, nil, err
	}
	// Parsed without allocating: the generator shares the CPU with the
	// server, and its own garbage collection would show as server latency.
	line, err := h.r.ReadSlice('\n')
	if err != nil {
		return 0, nil, err
	}
	status := -1
	if sp := bytes.IndexByte(line, ' '); sp > 0 && len(line) >= sp+4 {
		status = atoi(line[sp+1 : sp+4])
	}
	if status < 100 {
		return 0, nil, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		l, err := h.r.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(t, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			length = atoi(bytes.TrimSpace(v))
		}
	}
	if length < 0 {
		return 0, nil, fmt.Errorf("response without Content-Length")
	}
	if keep {
		body := make([]byte, length)
		_, err := io.ReadFull(h.r, body)
		return status, body, err
	}
	_, err = h.r.Discard(length)
	return status, nil, err
}

// processCPU is the CPU time (user and system) this process used so far,
// from /proc/self/stat (Linux, in ticks of 10 ms); 0 when it cannot be read.
func processCPU() time.Duration {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// Fields 14 and 15 (utime, stime), counted after the command name,
	// which is in parentheses and may hold spaces.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}
