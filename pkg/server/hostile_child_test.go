package server_test

// The hostile-tenant suite against lf serve in a child process: alerts
// that survive a kill -9, and the server's peak memory under a flood of
// distinct agent ids followed by report requests.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// peakRSS is the process's peak resident memory (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestHostileAlertsSurviveKill: an alert being delivered when lf serve is
// killed (kill -9) is delivered after the restart, with the same alert id.
func TestHostileAlertsSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts lf serve twice; skipped with -short")
	}
	t.Parallel() // mostly waits (timeouts, sleeps, a child process): runs beside the other tests
	var mu sync.Mutex
	var ids []string
	hang := make(chan struct{})
	var hangOnce sync.Once
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		ids = append(ids, r.Header.Get("X-LF-Alert-Id"))
		first := len(ids) == 1
		mu.Unlock()
		if first {
			<-hang // the first attempt hangs until the server is killed
		}
	}))
	defer receiver.Close()
	defer hangOnce.Do(func() { close(hang) })
	cfg := hostileCf + "webhookAllowHosts: [\"127.0.0.1:*\"]\n"
	cfg = strings.Replace(cfg, "delivery: {maxAttempts: 1, timeout: 2s}", "delivery: {maxAttempts: 3, timeout: 30s, redeliverAfter: 1s}", 1)
	dir := t.TempDir()
	h := startHostileIn(t, dir, cfg, nil)
	h.expect("risk config", hAdmin, "PUT", "/tenants/acme/risk-config", []byte(`{"enabled": true, "elevatedThreshold": 3, "highThreshold": 4, "criticalThreshold": 5}`), 200, "")
	h.expect("rule", hAdmin, "POST", "/tenants/acme/alert-rules", []byte(`{"id": "crit", "tier": "critical", "channel": "webhook", "url": "`+receiver.URL+`", "secretName": "acme-hooks"}`), 201, "")
	h.expect("ingest", hOperator, "POST", "/tenants/acme/events?recalculate=true", eventsNDJSON(40), 200, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(ids)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the alert never reached the receiver")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := h.proc.Kill(); err != nil { // kill -9 while the attempt hangs
		t.Fatal(err)
	}
	h.proc.Wait()
	hangOnce.Do(func() { close(hang) })

	h2 := startHostileIn(t, dir, cfg, nil)
	deadline = time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		got := append([]string(nil), ids...)
		mu.Unlock()
		if len(got) >= 2 {
			if got[1] != got[0] {
				t.Errorf("redelivered with alert id %s, first sent as %s", got[1], got[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the alert interrupted by kill -9 was not delivered after the restart:\n%s", h2.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		_, _, out, _ := h2.do(hViewer, "GET", "/tenants/acme/alert-deliveries", "", nil)
		if bytes.Contains(out, []byte(`"status":"delivered"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivered record after the restart: %s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// floodNDJSON is n events of tenant acme, each of its own agent.
func floodNDJSON(prefix string, n int) []byte {
	var b bytes.Buffer
	ts := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339)
	for i := range n {
		fmt.Fprintf(&b, `{"timestamp":%q,"tenant_id":"acme","agent_id":"%s-%06d","session_id":"s","method":"tools/call","tool":"read_file","decision":"allow","injection_score":0.2}`+"\n", ts, prefix, i)
	}
	return b.Bytes()
}

// cardinalityRSSCeiling is the documented ceiling (docs/serve.md) of the
// server's peak resident memory under the cardinality attack below.
const cardinalityRSSCeiling = 512 << 20

// TestHostileCardinality replays the cardinality attack: an operator
// ingest of 90,000 distinct agent ids in one 16 MiB body, then a tenant
// filled to its agent limit and recalculated, then four viewer reports and
// a full page of agents. The flood is refused, each report takes a bounded
// time, and the server's peak memory stays under the documented ceiling.
func TestHostileCardinality(t *testing.T) {
	if testing.Short() {
		t.Skip("starts lf serve; skipped with -short")
	}
	t.Parallel() // mostly waits (timeouts, sleeps, a child process): runs beside the other tests
	cfg := strings.Replace(hostileCf, "maxConnections: 16\n", "maxConnections: 16\nmaxBodyBytes: 16777216\n", 1)
	h := startHostileIn(t, t.TempDir(), cfg, nil)
	base := peakRSS(t, h.pid)
	flood := floodNDJSON("flood", 90000)
	code, _, out, took := h.do(hOperator, "POST", "/tenants/acme/events?recalculate=true", "", flood)
	if code != http.StatusConflict {
		t.Fatalf("90,000 distinct agents in %d bytes: %d %.300s", len(flood), code, out)
	}
	t.Logf("flood of %d bytes, 90,000 agents: %d in %s; peak RSS %d MB", len(flood), code, took.Round(time.Millisecond), peakRSS(t, h.pid)>>20)
	// The tenant at its limit (10,000 agents by default), recalculated.
	code, _, out, took = h.do(hOperator, "POST", "/tenants/acme/events?recalculate=true", "", floodNDJSON("agent", 10000))
	if code != 200 {
		t.Fatalf("10,000 agents: %d %.300s", code, out)
	}
	t.Logf("10,000 agents ingested and recalculated in %s; peak RSS %d MB", took.Round(time.Millisecond), peakRSS(t, h.pid)>>20)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, out, took := h.do(hViewer, "GET", "/tenants/acme/report", "", nil)
			if code != 200 || len(out) > 4<<20 {
				t.Errorf("report %d: %d, %d bytes", i, code, len(out))
			}
			t.Logf("report %d: %d bytes in %s", i, len(out), took.Round(time.Millisecond))
		}()
	}
	wg.Wait()
	code, hdr, out, _ := h.do(hViewer, "GET", "/tenants/acme/agents", "", nil)
	if code != 200 || hdr.Get("Link") == "" || len(out) > 1<<20 {
		t.Errorf("agents: %d, %d bytes, Link %q", code, len(out), hdr.Get("Link"))
	}
	peak := peakRSS(t, h.pid)
	t.Logf("peak RSS: %d MB at start, %d MB after the attack (ceiling %d MB)", base>>20, peak>>20, cardinalityRSSCeiling>>20)
	if peak > cardinalityRSSCeiling {
		t.Errorf("peak RSS %d MB, over the documented %d MB", peak>>20, cardinalityRSSCeiling>>20)
	}
}
