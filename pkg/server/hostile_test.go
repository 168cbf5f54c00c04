package server_test

// The hostile-tenant suite (issue 15): it starts `lf serve` in a child
// process (this test binary re-run as the lf command, on a real listener)
// and replays every attack of the security review (S1 to S9 and the "Also"
// items) with valid tenant keys, asserting the hardened behaviour; then a
// burst of 2,000 mixed good and bad requests must give no 5xx and leave the
// server's resident memory under hostileRSSCeiling.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/cli"
)

// hostileRSSCeiling is the documented ceiling (docs/serve.md) of the
// server's resident memory after the attacks and the burst. Measured: 62 to
// 153 MB; what varies is the garbage collector's timing (lf serve runs with
// GOGC=400) and SQLite's page cache (up to 64 MiB on a recalculating
// connection). Before the hardening, 40 verdicts with 10 MB ids alone left
// the server at 1.43 GB.
const hostileRSSCeiling = 256 << 20

const (
	hAdmin    = "acme-admin-key-0123456789"
	hOperator = "acme-gateway-key-0123456789"
	hViewer   = "acme-viewer-key-0123456789"
	hOther    = "globex-admin-key-0123456789"
	hSecret   = "acme-signing-secret-0123456789"
	hostileCf = `apiKeys:
  - {name: acme-admin, tenant: acme, role: admin, keyEnv: H_ADMIN}
  - {name: acme-gateway, tenant: acme, role: operator, keyEnv: H_OPERATOR}
  - {name: acme-viewer, tenant: acme, keyEnv: H_VIEWER}
  - {name: globex-admin, tenant: globex, role: admin, keyEnv: H_OTHER}
secrets:
  - {name: acme-hooks, tenant: acme, valueEnv: H_SECRET}
maxConnections: 16
recalcInterval: 1h
delivery: {maxAttempts: 1, timeout: 2s}
timeouts: {header: 1500ms, request: 2s, body: 1s}
`
	// The timeouts of hostileCf, shorter than the defaults (5 s, 10 s,
	// 5 s) so that S9 waits 3.5 s, not fifteen.
	hHeaderTimeout  = 1500 * time.Millisecond
	hRequestTimeout = 2 * time.Second
	hBodyTimeout    = time.Second
)

// TestHostileChild is `lf serve` when run by TestHostileTenant.
func TestHostileChild(t *testing.T) {
	args := os.Getenv("LF_HOSTILE_CHILD")
	if args == "" {
		t.Skip("only runs as the child of TestHostileTenant")
	}
	os.Exit(cli.Run(append([]string{"lf"}, strings.Fields(args)...), os.Stdin, os.Stdout, os.Stderr))
}

type hostile struct {
	t    *testing.T
	base string
	addr string
	pid  int
	log  *lockedBuf
	proc *os.Process
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startHostile(t *testing.T) *hostile {
	return startHostileIn(t, t.TempDir(), hostileCf, nil)
}

// startHostileIn starts lf serve in project dir (kept: a second start
// serves the same store) with server config cfg; env adds variables.
func startHostileIn(t *testing.T, dir, cfg string, env []string) *hostile {
	if err := os.WriteFile(filepath.Join(dir, "lf.yaml"), []byte("name: hostile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostileChild$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LF_HOSTILE_CHILD=serve --config server.yaml --addr 127.0.0.1:0 --grace 2s",
		"H_ADMIN="+hAdmin, "H_OPERATOR="+hOperator, "H_VIEWER="+hViewer, "H_OTHER="+hOther, "H_SECRET="+hSecret)
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &hostile{t: t, pid: cmd.Process.Pid, log: &lockedBuf{}, proc: cmd.Process}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`listening on http://(\S+)`)
		for sc.Scan() {
			fmt.Fprintln(h.log, sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
	}()
	select {
	case h.addr = <-addrc:
	case <-time.After(60 * time.Second):
		t.Fatalf("lf serve did not start:\n%s", h.log.String())
	}
	h.base = "http://" + h.addr
	return h
}

var client = &http.Client{Timeout: 30 * time.Second}

func (h *hostile) do(key, method, path, ctype string, body []byte) (int, http.Header, []byte, time.Duration) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.base+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if body == nil {
		req.Body = nil
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out, time.Since(start)
}

// errBody decodes a JSON error answer, failing the test when it is not one.
func (h *hostile) errBody(what string, hdr http.Header, out []byte) (msg, field string) {
	h.t.Helper()
	var e struct{ Error, Field string }
	if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || json.Unmarshal(out, &e) != nil || e.Error == "" {
		h.t.Errorf("%s: not a JSON error (%s): %.200s", what, hdr.Get("Content-Type"), out)
	}
	return e.Error, e.Field
}

// expect checks status and, for errors, a JSON body naming field.
func (h *hostile) expect(what string, key, method, path string, body []byte, status int, field string) []byte {
	h.t.Helper()
	code, hdr, out, _ := h.do(key, method, path, "", body)
	if code != status {
		h.t.Errorf("%s: status %d, want %d: %.300s", what, code, status, out)
		return out
	}
	if status >= 300 {
		_, f := h.errBody(what, hdr, out)
		if field != "" && f != field {
			h.t.Errorf("%s: field %q, want %q: %.300s", what, f, field, out)
		}
	}
	return out
}

func rss(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

func nested(depth int) []byte {
	return []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
}

func eventsNDJSON(n int) []byte {
	var b bytes.Buffer
	now := time.Now().UTC()
	for i := range n {
		ts := now.Add(-time.Duration(n-i) * time.Minute).Format(time.RFC3339)
		fmt.Fprintf(&b, `{"timestamp":%q,"tenant_id":"acme","agent_id":"rogue","session_id":"s%d","method":"tools/call","tool":"exec_%d","high_impact":true,"decision":"deny","rule":"no-exec","injection_score":0.98}`+"\n", ts, i%2, i%7)
		fmt.Fprintf(&b, `{"timestamp":%q,"tenant_id":"acme","agent_id":"good","session_id":"s%d","method":"tools/call","tool":"read_file","decision":"allow","injection_score":0.01}`+"\n", ts, i%5)
	}
	return b.Bytes()
}

func TestHostileTenant(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile-tenant suite starts lf serve; skipped with -short")
	}
	t.Parallel() // mostly waits (timeouts, sleeps, a child process): runs beside the other tests
	h := startHostile(t)
	startRSS := rss(t, h.pid)
	t.Logf("RSS at start: %d MB", startRSS>>20)

	// Set-up: events, a low-threshold config, a recalculation.
	h.expect("ingest", hOperator, "POST", "/tenants/acme/events", eventsNDJSON(40), 200, "")
	h.expect("config", hAdmin, "PUT", "/tenants/acme/risk-config", []byte(`{"enabled": true, "elevatedThreshold": 3, "highThreshold": 4, "criticalThreshold": 5, "criticalAllowedMethods": ["ping"]}`), 200, "")

	t.Run("S1 deep bodies are refused in milliseconds", func(t *testing.T) {
		// Deep bodies of every shape, under and over the 64 KB limit of
		// these endpoints (and under the 16 MB limit of events): 400 naming
		// the field, or 413, in milliseconds either way.
		cases := []struct {
			method, path string
			body         []byte
			status       int
			field        string
		}{
			{"PUT", "/tenants/acme/risk-config", nested(100 << 10 / 6), 413, ""},
			{"PUT", "/tenants/acme/risk-config", []byte(strings.Repeat("[", 60<<10)), 400, ""}, // the root: not an object
			{"PUT", "/tenants/acme/risk-config", []byte(`{"rateLimit": ` + strings.Repeat(`{"limit": 1, "x": `, 3000)), 400, "/rateLimit/x"},
			{"PUT", "/tenants/acme/risk-config", []byte(`{"criticalAllowedMethods": ` + strings.Repeat("[", 60<<10)), 400, "/criticalAllowedMethods/0"},
			{"PUT", "/tenants/acme/risk-config", []byte(`{"weights": ` + strings.Repeat(`{"injection": `, 4000)), 400, "/weights/injection"},
			{"POST", "/verdict", []byte(`{"tenantId": ` + strings.Repeat(`{"tenantId": `, 4000)), 400, "/tenantId"},
			{"POST", "/tenants/acme/alert-rules", []byte(strings.Repeat("[", 100<<10)), 413, ""},
			{"POST", "/tenants/acme/alert-rules", []byte(`{"to": ` + strings.Repeat("[", 60<<10)), 400, "/to/0"},
			{"POST", "/tenants/acme/alert-rules", []byte(`{"name": ` + strings.Repeat(`{"a": `, 9000)), 400, "/name"},
			{"POST", "/tenants/acme/alert-rules", []byte(strings.Repeat("- ", 30000) + "x"), 400, ""},
			{"POST", "/tenants/acme/events", []byte(strings.Repeat("[", 100<<10)), 400, "/0"},
			{"POST", "/tenants/acme/events", nested(100 << 10 / 6), 400, "/0/a"},
			{"POST", "/verdict", []byte(`{"agentId": ` + strings.Repeat("[", 60<<10)), 400, "/agentId"},
		}
		for _, c := range cases {
			code, hdr, out, took := h.do(hAdmin, c.method, c.path, "", c.body)
			msg, field := h.errBody(c.path, hdr, out)
			if code != c.status || field != c.field {
				t.Errorf("%s %d-byte body: %d field %q, want %d field %q: %.200s", c.path, len(c.body), code, field, c.status, c.field, out)
			}
			if took > 500*time.Millisecond {
				t.Errorf("%s: %d-byte hostile body took %v", c.path, len(c.body), took)
			}
			if strings.Contains(msg, "YAML syntax") {
				t.Errorf("%s: %s", c.path, msg)
			}
			t.Logf("%s %d bytes: %d in %v: %.100s", c.path, len(c.body), code, took, msg)
		}
	})

	t.Run("S2 rules name declared secrets only", func(t *testing.T) {
		h.expect("secretEnv", hAdmin, "POST", "/tenants/acme/alert-rules", []byte(`{"tier": "normal", "channel": "webhook", "url": "https://attacker.example/", "secretEnv": "H_ADMIN"}`), 400, "/secretEnv")
		h.expect("literal secret", hAdmin, "POST", "/tenants/acme/alert-rules", []byte(`{"tier": "normal", "channel": "webhook", "url": "https://attacker.example/", "secret": "x"}`), 400, "/secret")
		h.expect("undeclared name", hAdmin, "POST", "/tenants/acme/alert-rules", []byte(`{"tier": "normal", "channel": "webhook", "url": "https://attacker.example/", "secretName": "H_ADMIN"}`), 400, "/secretName")
		// globex cannot use acme's secret.
		h.expect("other tenant's secret", hOther, "POST", "/tenants/globex/alert-rules", []byte(`{"tier": "normal", "channel": "webhook", "url": "https://attacker.example/", "secretName": "acme-hooks"}`), 400, "/secretName")
	})

	var hits atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer receiver.Close()
	ru, _ := url.Parse(receiver.URL)

	t.Run("S4 internal targets are refused", func(t *testing.T) {
		for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:" + ru.Port() + "/", "http://10.0.0.1:6379/", "http://[::1]:22/", "http://0.0.0.0/"} {
			h.expect(u, hAdmin, "POST", "/tenants/acme/alert-rules", []byte(`{"tier": "critical", "channel": "webhook", "secretName": "acme-hooks", "url": "`+u+`"}`), 400, "/url")
		}
		// A name that resolves to loopback passes the rule check, and is
		// refused when the delivery connects (as a DNS rebinding would be).
		h.expect("rebinding rule", hAdmin, "POST", "/tenants/acme/alert-rules", []byte(`{"id": "rebind", "tier": "critical", "channel": "webhook", "secretName": "acme-hooks", "url": "http://localhost:`+ru.Port()+`/hook"}`), 201, "")
		h.expect("recalculate", hOperator, "POST", "/tenants/acme/risk/recalculate", nil, 200, "")
		var ds []struct{ RuleID, Status, Error, Time string }
		deadline := time.Now().Add(10 * time.Second)
		for len(ds) == 0 && time.Now().Before(deadline) {
			json.Unmarshal(h.expect("deliveries", hViewer, "GET", "/tenants/acme/alert-deliveries", nil, 200, ""), &ds)
			time.Sleep(20 * time.Millisecond)
		}
		if len(ds) == 0 || ds[0].Status != "failed" || ds[0].Error != "refused by policy" {
			t.Fatalf("deliveries: %+v", ds)
		}
		if hits.Load() != 0 {
			t.Errorf("the loopback receiver was reached")
		}
		if out := h.log.String(); !strings.Contains(out, "refused by policy") || !strings.Contains(out, "internal address") {
			t.Errorf("the server log lacks the refusal's detail:\n%s", out)
		}
	})

	t.Run("S3 only an admin lifts enforcement", func(t *testing.T) {
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/tenants/acme/agents/rogue/release", ""},
			{"DELETE", "/tenants/acme/agents/rogue/baseline", ""},
			{"PUT", "/tenants/acme/risk-config", `{"enabled": false}`},
			{"POST", "/tenants/acme/alert-rules", `{"threshold": 1, "channel": "email", "to": ["a@example.com"]}`},
			{"DELETE", "/tenants/acme/alert-rules/rebind", ""},
		} {
			var b []byte
			if c.body != "" {
				b = []byte(c.body)
			}
			h.expect("operator "+c.method+" "+c.path, hOperator, c.method, c.path, b, 403, "")
			h.expect("viewer "+c.method+" "+c.path, hViewer, c.method, c.path, b, 403, "")
			h.expect("other tenant "+c.method+" "+c.path, hOther, c.method, c.path, b, 404, "")
		}
		h.expect("viewer verdict", hViewer, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "rogue", "method": "tools/call"}`), 403, "")
		out := h.expect("operator verdict", hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "rogue", "method": "tools/call"}`), 200, "")
		if !strings.Contains(string(out), `"action":"block"`) {
			t.Errorf("the rogue agent is not blocked: %s", out)
		}
		h.expect("admin release", hAdmin, "POST", "/tenants/acme/agents/rogue/release", nil, 200, "")
	})

	t.Run("S5 ids are bounded and printable", func(t *testing.T) {
		big := strings.Repeat("x", 10<<20)
		before := rss(t, h.pid)
		for range 40 {
			code, hdr, out, _ := h.do(hOperator, "POST", "/verdict", "", []byte(`{"tenantId": "acme", "agentId": "`+big+`", "method": "m"}`))
			if code != 413 {
				t.Fatalf("10 MB agent id: %d %.200s", code, out)
			}
			h.errBody("10 MB id", hdr, out)
		}
		if after := rss(t, h.pid); after-before > 64<<20 {
			t.Errorf("40 verdicts with 10 MB ids grew RSS from %d to %d MB", before>>20, after>>20)
		}
		// A flood of distinct 256-byte ids: the verdict cache is bounded in
		// bytes, so memory stays under the ceiling.
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 2500 {
					id := fmt.Sprintf("%0256d", w*1_000_000+i)
					req, _ := http.NewRequest("POST", h.base+"/verdict", strings.NewReader(`{"tenantId": "acme", "agentId": "`+id+`", "method": "m"}`))
					req.Header.Set("Authorization", "Bearer "+hOperator)
					resp, err := client.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						t.Errorf("256-byte id: %d", resp.StatusCode)
						return
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("RSS after 10,000 verdicts with distinct 256-byte ids: %d MB", rss(t, h.pid)>>20)
		h.expect("257-byte id", hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "`+strings.Repeat("a", 257)+`", "method": "m"}`), 400, "/agentId")
		h.expect("NUL id", hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "a\u0000b", "method": "m"}`), 400, "/agentId")
		h.expect("HTML id", hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "<script>alert(1)</script>", "method": "m"}`), 400, "/agentId")
		h.expect("HTML event id", hOperator, "POST", "/tenants/acme/events", []byte(`{"timestamp": "2026-04-16T14:00:00Z", "tenant_id": "acme", "agent_id": "<img src=x>"}`), 400, "/0/agent_id")
		h.expect("long path id", hViewer, "GET", "/tenants/acme/agents/"+strings.Repeat("a", 300)+"/risk", nil, 400, "agentId")
	})

	t.Run("S7 lists are bounded", func(t *testing.T) {
		methods := make([]string, 900_000)
		for i := range methods {
			methods[i] = "m"
		}
		b, _ := json.Marshal(map[string]any{"criticalAllowedMethods": methods})
		h.expect("900,000 methods", hAdmin, "PUT", "/tenants/acme/risk-config", b, 413, "")
		b, _ = json.Marshal(map[string]any{"criticalAllowedMethods": methods[:257]})
		h.expect("257 methods", hAdmin, "PUT", "/tenants/acme/risk-config", b, 400, "/criticalAllowedMethods")
		to := make([]string, 33)
		for i := range to {
			to[i] = fmt.Sprintf("a%d@example.com", i)
		}
		b, _ = json.Marshal(map[string]any{"threshold": 1, "channel": "email", "to": to})
		h.expect("33 recipients", hAdmin, "POST", "/tenants/acme/alert-rules", b, 400, "/to")
	})

	t.Run("S8 keys match exactly", func(t *testing.T) {
		h.expect("TENANTID", hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "TENANTID": "globex", "agentId": "a", "method": "m"}`), 400, "/TENANTID")
		h.expect("duplicate", hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "tenantId": "globex", "agentId": "a", "method": "m"}`), 400, "/tenantId")
		h.expect("Enabled", hAdmin, "PUT", "/tenants/acme/risk-config", []byte(`{"Enabled": false}`), 400, "/Enabled")
	})

	t.Run("S9 slow clients are cut off", func(t *testing.T) {
		// Unauthenticated: answered at once, body never read.
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /verdict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		start := time.Now()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 401 {
			t.Fatalf("unauthenticated slow body: %v %v", resp, err)
		}
		t.Logf("unauthenticated slow body answered in %v", time.Since(start))
		// Authenticated, on an endpoint without a body: answered at once too.
		cg, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer cg.Close()
		fmt.Fprintf(cg, "GET /tenants/acme/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n{", hViewer)
		cg.SetReadDeadline(time.Now().Add(2 * time.Second))
		if resp, err := http.ReadResponse(bufio.NewReader(cg), nil); err != nil || resp.StatusCode != 200 {
			t.Errorf("GET with a slow body: %v %v", resp, err)
		}
		// Authenticated: cut off with 408 after the request timeout (from the
		// request's start), and on an endpoint with a larger body after the
		// shorter body timeout, before the request timeout. The two wait at
		// the same time, each timed from its own request.
		type answer struct {
			resp *http.Response
			body []byte
			took time.Duration
			err  error
		}
		slow := func(request string) <-chan answer {
			start := time.Now() // before the server can start its clock
			c, err := net.Dial("tcp", h.addr)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan answer, 1)
			go func() {
				defer c.Close()
				fmt.Fprint(c, request)
				c.SetReadDeadline(time.Now().Add(15 * time.Second))
				var a answer
				a.resp, a.err = http.ReadResponse(bufio.NewReader(c), nil)
				a.took = time.Since(start)
				if a.err == nil {
					a.body, _ = io.ReadAll(a.resp.Body)
				}
				done <- a
			}()
			return done
		}
		verdict := slow(fmt.Sprintf("POST /verdict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n{", hOperator))
		config := slow(fmt.Sprintf("PUT /tenants/acme/risk-config HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 1000\r\n\r\n{", hAdmin))
		a := <-verdict
		if a.err != nil || a.resp.StatusCode != 408 || a.took < hRequestTimeout || a.took > hRequestTimeout+2*time.Second {
			t.Fatalf("authenticated slow body: %v %v after %v, want 408 after about %v", a.resp, a.err, a.took, hRequestTimeout)
		}
		t.Logf("authenticated slow body cut off after %v", a.took)
		a = <-config
		if a.err != nil || a.resp.StatusCode != 408 || a.took < hBodyTimeout || a.took >= hRequestTimeout-100*time.Millisecond {
			t.Fatalf("slow risk-config body: %v %v after %v, want 408 after about %v", a.resp, a.err, a.took, hBodyTimeout)
		}
		h.errBody("408", a.resp.Header, a.body)
		t.Logf("slow risk-config body cut off after %v", a.took)
	})

	t.Run("S9 connections are capped", func(t *testing.T) {
		// maxConnections: 16. Sixteen silent connections fill the server;
		// the header timeout (hHeaderTimeout) frees them, then requests go
		// through.
		var conns []net.Conn
		for range 16 {
			c, err := net.Dial("tcp", h.addr)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			defer c.Close()
		}
		time.Sleep(100 * time.Millisecond)
		quick := &http.Client{Timeout: 300 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
		if resp, err := quick.Get(h.base + "/healthz"); err == nil {
			resp.Body.Close()
			t.Errorf("a 17th connection was served while 16 were open")
		}
		start := time.Now()
		for {
			resp, err := quick.Get(h.base + "/healthz")
			if err == nil {
				resp.Body.Close()
				break
			}
			if time.Since(start) > hHeaderTimeout+2*time.Second { // the default (5 s) would be too late
				t.Fatalf("silent connections were never cut off: %v", err)
			}
		}
		t.Logf("silent connections cut off; served again after %v", time.Since(start))
	})

	t.Run("Also", func(t *testing.T) {
		h.expect("year 1", hOperator, "POST", "/tenants/acme/events", []byte(`{"timestamp": "0001-01-01T00:00:00Z", "tenant_id": "acme", "agent_id": "a"}`), 400, "/0/timestamp")
		code, hdr, out, _ := h.do(hAdmin, "PUT", "/tenants/acme/risk-config", "", []byte(`{"enabled": tru`))
		msg, _ := h.errBody("syntax", hdr, out)
		if code != 400 || strings.Contains(msg, "YAML syntax") || !strings.Contains(msg, "JSON") {
			t.Errorf("JSON syntax error: %d %s", code, msg)
		}
		h.expect("YAML body", hAdmin, "PUT", "/tenants/acme/risk-config", []byte("enabled: true\nhighThreshold: 70\n"), 400, "")
		code, hdr, out, _ = h.do(hAdmin, "POST", "/tenants/acme/alert-rules", "application/yaml", []byte("threshold: 1\n"))
		if code != 415 {
			t.Errorf("YAML media type: %d %s", code, out)
		}
		h.errBody("415", hdr, out)
		code, hdr, out, _ = h.do(hOperator, "POST", "/tenants/acme/events", "", bytes.Repeat([]byte(" "), 17<<20))
		if code != 413 {
			t.Errorf("17 MB events: %d", code)
		}
		h.errBody("413", hdr, out)
		// 431: headers over 64 KB, whether net/http or the handler refuses them.
		for _, n := range []int{70 << 10, 2 << 20} {
			req, _ := http.NewRequest("GET", h.base+"/healthz", nil)
			req.Header.Set("X-Big", strings.Repeat("a", n))
			resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
			if err != nil {
				t.Errorf("%d-byte header: %v", n, err)
				continue
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 431 {
				t.Errorf("%d-byte header: %d", n, resp.StatusCode)
			}
			h.errBody("431", resp.Header, out)
		}
		// 307: a path the mux would redirect in HTML.
		req, _ := http.NewRequest("GET", h.base+"/tenants/acme//agents", nil)
		req.Header.Set("Authorization", "Bearer "+hViewer)
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 307 || resp.Header.Get("Location") != "/tenants/acme/agents" {
			t.Errorf("unclean path: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		h.errBody("307", resp.Header, out)
		// A malformed request line gets a JSON 400 too.
		c, err := net.Dial("tcp", h.addr)
		if err == nil {
			fmt.Fprintf(c, "GARBAGE\r\n\r\n")
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil || resp.StatusCode != 400 {
				t.Errorf("malformed request: %v %v", resp, err)
			} else {
				out, _ := io.ReadAll(resp.Body)
				h.errBody("malformed request", resp.Header, out)
			}
			c.Close()
		}
		// Timestamps come with second precision, as in the reference.
		frac := regexp.MustCompile(`\d{2}:\d{2}:\d{2}\.\d+`)
		ev := fmt.Sprintf(`{"timestamp": %q, "tenant_id": "acme", "agent_id": "rogue", "tool": "exec"}`, time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano))
		for _, c := range []struct{ key, method, path, body string }{
			{hOperator, "POST", "/tenants/acme/events", ev},
			{hAdmin, "POST", "/tenants/acme/agents/rogue/release", ""},
			{hOperator, "POST", "/tenants/acme/risk/recalculate", ""},
		} {
			var b []byte
			if c.body != "" {
				b = []byte(c.body)
			}
			if _, _, out, _ := h.do(c.key, c.method, c.path, "", b); frac.Find(out) != nil {
				t.Errorf("%s %s returns a fractional timestamp: %.300s", c.method, c.path, out)
			}
		}
		for _, p := range []string{"/healthz", "/tenants/acme/alert-rules", "/tenants/acme/alert-deliveries", "/tenants/acme/agents", "/tenants/acme/agents/rogue/risk", "/tenants/acme/agents/rogue/baseline"} {
			_, _, out, _ := h.do(hViewer, "GET", p, "", nil)
			if m := frac.Find(out); m != nil {
				t.Errorf("%s returns a fractional timestamp %s: %.300s", p, m, out)
			}
		}
	})

	t.Run("burst of 2,000 mixed requests", func(t *testing.T) {
		good := []struct {
			key, method, path string
			body              []byte
		}{
			{hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "good", "method": "tools/call"}`)},
			{hViewer, "GET", "/tenants/acme/agents", nil},
			{hViewer, "GET", "/tenants/acme/risk-config", nil},
			{hOperator, "POST", "/tenants/acme/events", eventsNDJSON(2)},
			{"", "GET", "/healthz", nil},
		}
		bad := []struct {
			key, method, path string
			body              []byte
		}{
			{hOperator, "POST", "/verdict", nested(5000)},
			{hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "` + strings.Repeat("x", 60<<10) + `", "method": "m"}`)},
			{hAdmin, "PUT", "/tenants/acme/risk-config", []byte(strings.Repeat("[", 60<<10))},
			{hAdmin, "POST", "/tenants/acme/alert-rules", []byte("channel: webhook\nurl: http://169.254.169.254/\n")},
			{hOperator, "POST", "/tenants/acme/events", []byte(`[{"timestamp": "0001-01-01T00:00:00Z", "tenant_id": "acme", "agent_id": "a"}]`)},
			{hViewer, "POST", "/tenants/acme/agents/rogue/release", nil},
			{hOther, "GET", "/tenants/acme/agents", nil},
			{"wrong-key-0123456789abcdef", "POST", "/verdict", []byte(`{}`)},
			{hOperator, "POST", "/verdict", []byte("\x00\xff\xfe")},
			{hOperator, "POST", "/verdict", []byte(`{"tenantId": "acme", "agentId": "a\u0001", "method": "m"}`)},
		}
		var n5xx, total atomic.Int32
		var wg sync.WaitGroup
		tr := &http.Transport{MaxIdleConnsPerHost: 8}
		cl := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		start := time.Now()
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 250 {
					var key, method, path string
					var body []byte
					if (w+i)%2 == 0 {
						g := good[(w*7+i)%len(good)]
						key, method, path, body = g.key, g.method, g.path, g.body
					} else {
						b := bad[(w*3+i)%len(bad)]
						key, method, path, body = b.key, b.method, b.path, b.body
					}
					req, _ := http.NewRequest(method, h.base+path, bytes.NewReader(body))
					if body == nil {
						req.Body = nil
					}
					if key != "" {
						req.Header.Set("Authorization", "Bearer "+key)
					}
					resp, err := cl.Do(req)
					if err != nil {
						t.Errorf("%s %s: %v", method, path, err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					total.Add(1)
					if resp.StatusCode >= 500 {
						n5xx.Add(1)
						t.Errorf("%s %s: %d", method, path, resp.StatusCode)
					}
				}
			}()
		}
		wg.Wait()
		tr.CloseIdleConnections()
		t.Logf("%d requests in %v, %d server errors", total.Load(), time.Since(start), n5xx.Load())
		if total.Load() != 2000 || n5xx.Load() != 0 {
			t.Errorf("%d requests answered, %d with 5xx", total.Load(), n5xx.Load())
		}
		if code, _, _, _ := h.do("", "GET", "/healthz", "", nil); code != 200 {
			t.Errorf("healthz after the burst: %d", code)
		}
		time.Sleep(200 * time.Millisecond)
		after := rss(t, h.pid)
		t.Logf("RSS: %d MB at start, %d MB after the attacks and the burst (ceiling %d MB)", startRSS>>20, after>>20, hostileRSSCeiling>>20)
		if raceEnabled {
			t.Log("built with -race: the memory ceiling is not checked")
		} else if after > hostileRSSCeiling {
			t.Errorf("RSS %d MB after the burst, above the ceiling of %d MB", after>>20, hostileRSSCeiling>>20)
		}
	})
}
