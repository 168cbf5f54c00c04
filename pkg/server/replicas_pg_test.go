package server

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

// A risk config PUT on one replica is used by the other's verdicts within
// a second: the other drops its cached config on the notification.
func TestReplicasConfigPropagation(t *testing.T) {
	dsn := pgtest.New(t)
	dir := replicaProject(t, "recalcInterval: 1h\n")
	a := startReplica(t, "A", dir, dsn)
	b := startReplica(t, "B", dir, dsn)
	for range 3 { // B caches t1's config: no rate limit
		if v := verdictOn(t, b, "t1", "agent-x"); v.Action != agentrisk.ActionAllow {
			t.Fatalf("verdict before the config change: %+v", v)
		}
	}
	for round := range 3 {
		limit := map[string]any{"rateLimit": map[string]any{"limit": 1, "windowSeconds": 3600}}
		if round%2 == 1 {
			limit = map[string]any{} // back to no limit
		}
		if st := a.call(t, keyT1, "PUT", "/tenants/t1/risk-config", limit, nil); st != 200 {
			t.Fatalf("PUT risk-config on A: %d", st)
		}
		want := agentrisk.ReasonRateLimit
		if round%2 == 1 {
			want = ""
		}
		took := waitFor(t, time.Second, "B uses the config A stored", func() bool {
			return verdictOn(t, b, "t1", "agent-x").Reason == want
		})
		t.Logf("round %d: B used the new config %s after A answered the PUT", round, took.Round(time.Millisecond))
	}
}

var recalcLine = regexp.MustCompile(`background recalculation: \d+ agents`)

// The background recalculation runs on one replica; killed (kill -9) during
// a recalculation, the other replica takes the lock and recalculates.
func TestReplicasRecalcTakeover(t *testing.T) {
	dsn := pgtest.New(t)
	dir := replicaProject(t, "recalcInterval: 200ms\n")
	a := startReplica(t, "A", dir, dsn)
	waitFor(t, 5*time.Second, "A takes the recalculation lock", func() bool { return a.health(t).RecalcLeader })
	b := startReplica(t, "B", dir, dsn)
	// Enough agents that a recalculation takes a while.
	var body strings.Builder
	now := time.Now().UTC()
	for ag := range 300 {
		for i := range 20 {
			fmt.Fprintf(&body, `{"timestamp":%q,"tenant_id":"t1","agent_id":"ag%d","session_id":"s%d","method":"tools/call","tool":"t%d","decision":"allow","injection_score":0.%02d}`+"\n",
				now.Add(-time.Duration(i)*time.Minute).Format(time.RFC3339), ag, i%3, i%4, (ag+i)%100)
		}
	}
	var eb ErrorBody
	if st := b.call(t, keyT1, "POST", "/tenants/t1/events", body.String(), &eb); st != 200 {
		t.Fatalf("ingest: %d %+v", st, eb)
	}
	time.Sleep(time.Second)
	if b.health(t).RecalcLeader {
		t.Fatal("both replicas hold the recalculation lock")
	}
	if n := len(recalcLine.FindAllString(b.log.String(), -1)); n != 0 {
		t.Fatalf("B ran %d background recalculations while A held the lock:\n%s", n, b.log)
	}
	waitFor(t, 10*time.Second, "A recalculates", func() bool { return a.health(t).Recalculating })
	a.kill()
	killed := time.Now()
	took := waitFor(t, 5*time.Second, "B takes over the recalculation", func() bool { return b.health(t).RecalcLeader })
	waitFor(t, 10*time.Second, "B completes a background recalculation", func() bool {
		return recalcLine.MatchString(b.log.String())
	})
	t.Logf("B took the lock %s after A was killed mid-recalculation; first run done %s after the kill", took.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
	var list []agentrisk.AgentSummary
	b.call(t, keyT1, "GET", "/tenants/t1/agents", nil, &list)
	if len(list) != 300 {
		t.Fatalf("after the takeover t1 has %d scored agents, want 300", len(list))
	}
}

// An alert crossing seen by both replicas recalculating at once fires once.
func TestReplicasAlertFiresOnce(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{} // agent -> webhook calls
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a struct {
			AgentID string `json:"agentId"`
		}
		b, _ := io.ReadAll(r.Body)
		jsonUnmarshal(b, &a)
		mu.Lock()
		calls[a.AgentID]++
		mu.Unlock()
	}))
	defer receiver.Close()
	dsn := pgtest.New(t)
	dir := replicaProject(t, "recalcInterval: 1h\nwebhookAllowHosts: [\"127.0.0.1:*\"]\n")
	a := startReplica(t, "A", dir, dsn)
	b := startReplica(t, "B", dir, dsn)
	if st := a.call(t, keyT1, "PUT", "/tenants/t1/risk-config", lowThresholds, nil); st != 200 {
		t.Fatalf("PUT risk-config: %d", st)
	}
	rule := map[string]any{"id": "crit", "tier": "critical", "channel": "webhook", "url": receiver.URL + "/hook", "secretName": "hook"}
	if st := a.call(t, keyT1, "POST", "/tenants/t1/alert-rules", rule, nil); st != 201 {
		t.Fatalf("create rule: %d", st)
	}
	// 40 misbehaving agents, each crossing into Critical at the first
	// recalculation, recalculated by 3 requests on each replica at once.
	var body strings.Builder
	for ag := range 40 {
		body.WriteString(strings.ReplaceAll(events("t1", 20), `"agent_id":"bad"`, fmt.Sprintf(`"agent_id":"bad%d"`, ag)))
	}
	if st := a.call(t, keyT1, "POST", "/tenants/t1/events", body.String(), nil); st != 200 {
		t.Fatalf("ingest: %d", st)
	}
	var wg sync.WaitGroup
	for i := range 6 {
		r := a
		if i%2 == 1 {
			r = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st := r.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate", nil, nil); st != 200 {
				t.Errorf("recalculate on %s: %d", r.name, st)
			}
		}()
	}
	wg.Wait()
	waitFor(t, 10*time.Second, "40 alerts delivered", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(calls) >= 40
	})
	time.Sleep(500 * time.Millisecond) // late duplicates would arrive by now
	mu.Lock()
	defer mu.Unlock()
	for ag, n := range calls {
		if n != 1 || !strings.HasPrefix(ag, "bad") {
			t.Errorf("agent %s: %d webhook calls, want 1 (misbehaving agents only)", ag, n)
		}
	}
	if len(calls) != 40 {
		t.Errorf("%d agents alerted, want 40", len(calls))
	}
}

// tcpProxy forwards connections to target until closed; closing it drops
// every connection, as a PostgreSQL restart does.
type tcpProxy struct {
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func (p *tcpProxy) start(t *testing.T) {
	t.Helper()
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	for range 50 { // the port may linger briefly after close
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
}

func (p *tcpProxy) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// With PostgreSQL unreachable, requests that need the store answer 503 with
// a reason, verdicts of cached agents keep working, and everything recovers
// when PostgreSQL is back, without restarting lf serve.
func TestReplicaStoreUnavailable(t *testing.T) {
	dsn := pgtest.New(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{target: u.Host}
	p.start(t)
	defer p.close()
	u.Host = p.addr
	dir := replicaProject(t, "recalcInterval: 1h\n")
	a := startReplica(t, "A", dir, u.String())
	if st := a.call(t, keyT1, "POST", "/tenants/t1/events?recalculate=true", events("t1", 20), nil); st != 200 {
		t.Fatalf("ingest: %d", st)
	}
	verdictOn(t, a, "t1", "bad") // cached from now on
	p.close()
	var eb ErrorBody
	st := a.call(t, keyT1, "GET", "/tenants/t1/agents", nil, &eb)
	if st != http.StatusServiceUnavailable || !strings.Contains(eb.Error, "store unavailable") {
		t.Fatalf("GET agents with PostgreSQL down: %d %+v, want 503 with a reason", st, eb)
	}
	t.Logf("with PostgreSQL down: %d %q", st, eb.Error)
	if st := a.call(t, keyT1, "POST", "/tenants/t1/events", events("t1", 2), &eb); st != http.StatusServiceUnavailable {
		t.Fatalf("ingest with PostgreSQL down: %d, want 503", st)
	}
	if v := verdictOn(t, a, "t1", "bad"); v.Score == 0 {
		t.Fatalf("verdict of a cached agent with PostgreSQL down: %+v", v)
	}
	p.start(t) // PostgreSQL is back, on the same address
	took := waitFor(t, 10*time.Second, "requests succeed again", func() bool {
		return a.call(t, keyT1, "GET", "/tenants/t1/agents", nil, nil) == 200
	})
	t.Logf("recovered %s after PostgreSQL was reachable again", took.Round(time.Millisecond))
	if st := a.call(t, keyT1, "POST", "/tenants/t1/events", events("t1", 2), nil); st != 200 {
		t.Fatalf("ingest after recovery: %d", st)
	}
}

// A tenant's rate limit holds across two replicas: together they admit at
// most the limit, and at least 90% of it, whether the requests are spread
// evenly or mostly sent to one replica.
func TestReplicasRateLimit(t *testing.T) {
	dsn := pgtest.New(t)
	dir := replicaProject(t, "recalcInterval: 1h\n")
	a := startReplica(t, "A", dir, dsn)
	b := startReplica(t, "B", dir, dsn)
	const limit = 500
	for round, shareA := range []int{50, 90} {
		tenant := "t1"
		key := keyT1
		if round == 1 {
			tenant, key = "t2", keyT2
		}
		cfg := map[string]any{"rateLimit": map[string]any{"limit": limit, "windowSeconds": 3600}}
		if st := a.call(t, key, "PUT", "/tenants/"+tenant+"/risk-config", cfg, nil); st != 200 {
			t.Fatalf("PUT risk-config: %d", st)
		}
		time.Sleep(200 * time.Millisecond)
		hour := time.Now().Unix() / 3600
		var mu sync.Mutex
		allowed := map[string]int{}
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 3 * limit / 8 {
					r := b
					if (i+w)%10 < shareA/10 {
						r = a
					}
					v := verdictOn(t, r, tenant, fmt.Sprintf("agent-%d", i%10))
					mu.Lock()
					if v.Action == agentrisk.ActionAllow {
						allowed[r.name]++
					} else if v.Reason != agentrisk.ReasonRateLimit {
						t.Errorf("blocked for %q", v.Reason)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if time.Now().Unix()/3600 != hour {
			t.Skip("the rate window (an hour) ended during the test; run it again")
		}
		total := allowed["A"] + allowed["B"]
		t.Logf("%d%% of %d requests to A: admitted %d (A %d, B %d) with a limit of %d", shareA, 3*limit/8*8, total, allowed["A"], allowed["B"], limit)
		if total > limit || total < limit*9/10 {
			t.Errorf("two replicas admitted %d requests with a limit of %d; want %d..%d\nA's log:\n%s\nB's log:\n%s", total, limit, limit*9/10, limit, a.log, b.log)
		}
	}
}
