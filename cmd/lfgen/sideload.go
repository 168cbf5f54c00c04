package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// sideLoad runs next to the verdict load of loadgen: events ingested at a
// fixed rate into the same tenant and agents (-ingest-rate), and freshness
// probes (-probe): one injection event for a new agent, then verdicts for
// that agent every 200 µs until one reflects it (scored). The freshness is
// the time from sending the ingest request to that verdict's answer.
type sideLoad struct {
	ingestRate, ingestBatch int
	probe                   time.Duration

	addr, key, tenant string
	agents            int

	mu         sync.Mutex
	ingestLat  []time.Duration
	ingested   int
	ingestErrs int
	fresh      []time.Duration
	probeErrs  int
	lastErr    string
}

type sideEvent struct {
	Timestamp      string   `json:"timestamp"`
	TenantID       string   `json:"tenant_id"`
	AgentID        string   `json:"agent_id"`
	SessionID      string   `json:"session_id"`
	Method         string   `json:"method"`
	Tool           string   `json:"tool"`
	Resource       string   `json:"resource,omitempty"`
	HighImpact     bool     `json:"high_impact,omitempty"`
	Decision       string   `json:"decision"`
	InjectionScore *float64 `json:"injection_score,omitempty"`
	RequestID      string   `json:"request_id"`
}

// start begins the side load after warmup and returns a function that stops
// it at the latest at end (from now), waits, and prints its figures.
func (s *sideLoad) start(warmup, end time.Duration) func() error {
	if s.ingestRate == 0 && s.probe == 0 {
		return func() error { return nil }
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	t0 := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	measuring := func() bool { return time.Since(t0) >= warmup }
	if s.ingestRate > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.ingestLoop(client, stop, measuring)
		}()
	}
	if s.probe > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.probeLoop(client, stop, measuring, t0)
		}()
	}
	timer := time.AfterFunc(end, func() { close(stop) })
	return func() error {
		if timer.Stop() {
			close(stop)
		}
		wg.Wait()
		return s.report((end - warmup).Seconds())
	}
}

// ingestLoop posts a batch every ingestBatch/ingestRate seconds until stop,
// each in its own request (a slow server shows as requests in flight).
func (s *sideLoad) ingestLoop(client *http.Client, stop <-chan struct{}, measuring func() bool) {
	interval := time.Duration(float64(time.Second) * float64(s.ingestBatch) / float64(s.ingestRate))
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var inflight sync.WaitGroup
	defer inflight.Wait()
	seq := 0
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		body := s.batch(rng, &seq)
		inflight.Add(1)
		go func() {
			defer inflight.Done()
			t := time.Now()
			status, out, err := send(client, "http://"+s.addr+"/tenants/"+s.tenant+"/events", s.key, body)
			s.recordIngest(time.Since(t), status, out, err, measuring())
		}()
	}
}

// recordIngest counts one ingest request's answer.
func (s *sideLoad) recordIngest(d time.Duration, status int, out []byte, err error, measuring bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && status != 200 {
		err = fmt.Errorf("ingest: HTTP %d: %s", status, out)
	}
	if err != nil {
		s.ingestErrs++
		if s.lastErr == "" {
			s.lastErr = err.Error()
		}
		return
	}
	if measuring {
		s.ingestLat = append(s.ingestLat, d)
		s.ingested += s.ingestBatch
	}
}

// probeLoop runs a freshness probe every s.probe until stop.
func (s *sideLoad) probeLoop(client *http.Client, stop <-chan struct{}, measuring func() bool, t0 time.Time) {
	tick := time.NewTicker(s.probe)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		d, err := s.freshness(client, fmt.Sprintf("probe-%d-%d", t0.UnixNano(), n))
		s.mu.Lock()
		if err != nil {
			s.probeErrs++
			s.lastErr = err.Error()
		} else if measuring() {
			s.fresh = append(s.fresh, d)
		}
		s.mu.Unlock()
	}
}

// report prints the side load's figures over secs measured seconds.
func (s *sideLoad) report(secs float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ingestRate > 0 {
		fmt.Printf("ingest: %d events in %d requests of %d (%.0f events/s measured), %d failed requests; request latency %s\n",
			s.ingested, len(s.ingestLat), s.ingestBatch, float64(s.ingested)/secs, s.ingestErrs, summary(s.ingestLat))
	}
	if s.probe > 0 {
		fmt.Printf("event-to-verdict freshness (%d probes, %d failed): %s\n", len(s.fresh), s.probeErrs, summary(s.fresh))
	}
	if s.ingestErrs > 0 || s.probeErrs > 0 {
		return fmt.Errorf("%d ingest requests and %d probes failed; the last: %s", s.ingestErrs, s.probeErrs, s.lastErr)
	}
	return nil
}

var sideTools = []string{"read_file", "search_docs", "list_dir", "write_file"}

// batch is the next NDJSON batch: ingestBatch new events (unique request
// ids) for the load's agents, one in twenty denied, one in ten with an
// injection score. It appends the JSON by hand: encoding/json here cost
// the generator several µs per event, CPU taken from the server it
// measures on a shared machine.
func (s *sideLoad) batch(rng *rand.Rand, seq *int) []byte {
	now := time.Now().UTC()
	ts := now.Format(time.RFC3339Nano)
	b := make([]byte, 0, s.ingestBatch*260)
	for range s.ingestBatch {
		*seq++
		b = append(b, `{"timestamp":"`...)
		b = append(b, ts...)
		b = append(b, `","tenant_id":`...)
		b = strconv.AppendQuote(b, s.tenant)
		b = append(b, `,"agent_id":"agent-`...)
		b = strconv.AppendInt(b, int64(rng.Intn(s.agents)), 10)
		b = append(b, `","session_id":"s`...)
		b = strconv.AppendInt(b, int64(rng.Intn(50)), 10)
		b = append(b, `","method":"tools/call","tool":"`...)
		b = append(b, sideTools[rng.Intn(len(sideTools))]...)
		b = append(b, `","resource":"/docs/`...)
		b = strconv.AppendInt(b, int64(rng.Intn(20)), 10)
		b = append(b, `.md","decision":"`...)
		if rng.Intn(20) == 0 {
			b = append(b, `deny"`...)
		} else {
			b = append(b, `allow"`...)
		}
		if rng.Intn(10) == 0 {
			b = append(b, `,"injection_score":`...)
			b = strconv.AppendFloat(b, float64(rng.Intn(300))/1000, 'g', -1, 64)
		}
		b = append(b, `,"request_id":"lg-`...)
		b = strconv.AppendInt(b, now.UnixNano(), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(*seq), 10)
		b = append(b, "\"}\n"...)
	}
	return b
}

// freshness ingests one strong injection for a new agent and polls its
// verdict until it is scored; it returns the time from the ingest request
// being sent to the first verdict that reflects it.
func (s *sideLoad) freshness(client *http.Client, agent string) (time.Duration, error) {
	conn, err := dial(s.addr)
	if err != nil {
		return 0, err
	}
	defer conn.close()
	vb := []byte(fmt.Sprintf(`{"tenantId":%q,"agentId":%q,"method":"tools/call"}`, s.tenant, agent))
	vreq := []byte(fmt.Sprintf("POST /verdict HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", s.addr, s.key, len(vb), vb))
	inj := 0.99
	ev, _ := json.Marshal(sideEvent{Timestamp: time.Now().UTC().Format(time.RFC3339Nano), TenantID: s.tenant, AgentID: agent, SessionID: "probe", Method: "tools/call", Tool: "read_file", Decision: "deny", InjectionScore: &inj, RequestID: agent})
	start := time.Now()
	errc := make(chan error, 1)
	go func() {
		status, body, err := send(client, "http://"+s.addr+"/tenants/"+s.tenant+"/events", s.key, ev)
		if err == nil && status != 200 {
			err = fmt.Errorf("probe ingest: HTTP %d: %s", status, body)
		}
		errc <- err
	}()
	defer func() { <-errc }()
	for time.Since(start) < 10*time.Second {
		status, body, err := conn.doBody(vreq)
		if err != nil {
			return 0, err
		}
		if status != 200 {
			return 0, fmt.Errorf("probe verdict: HTTP %d: %s", status, body)
		}
		if bytes.Contains(body, []byte(`"scored":true`)) {
			return time.Since(start), nil
		}
		time.Sleep(200 * time.Microsecond)
	}
	return 0, fmt.Errorf("probe %s: no verdict reflected the event within 10 s", agent)
}
