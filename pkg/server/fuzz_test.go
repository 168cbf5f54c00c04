package server

// Fuzz targets for the API body decoders (issue 15 item 5, run by
// `task fuzz`): each feeds arbitrary bytes to one endpoint through the whole
// handler (scanner, decoder, checks, store) and requires a JSON answer that
// is never a server error, within the body limits.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
	"github.com/lfcli/lf/pkg/store"
)

// fuzzServer is one server per fuzz target, on a throw-away store.
func fuzzServer(f *testing.F) *Server {
	f.Helper()
	dir, err := os.MkdirTemp("", "lf-fuzz-")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "lf.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	cfg, d := LoadConfig("server.yaml", []byte(`apiKeys: [{name: ops, admin: true, key: `+keyAdmin+`}]
secrets: [{name: hook, tenant: t1, value: 0123456789abcdefgh}]
webhookAllowHosts: ["hooks.example.com", "127.0.0.1:*"]
`), func(string) string { return "" })
	if d.HasErrors() {
		f.Fatal(d)
	}
	s, err := New(ctx, cfg, st, io.Discard)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close(ctx) })
	return s
}

// fuzzCall sends body to method path and checks the answer, and that it
// came within fuzzcheck's time and memory bounds.
func fuzzCall(t *testing.T, s *Server, method, path string, body []byte) {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+keyAdmin)
	rec := httptest.NewRecorder()
	fuzzcheck.Bounded(t, len(body), func() { s.Handler().ServeHTTP(rec, req) })
	if rec.Code >= 500 {
		t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.Bytes())
	}
	if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusNoContent && !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: %d with Content-Type %q", method, path, rec.Code, ct)
	}
	if rec.Code >= 400 {
		var e ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
			t.Fatalf("%s %s: %d error body %q", method, path, rec.Code, rec.Body.Bytes())
		}
	}
}

func seedFile(f *testing.F, parts ...string) {
	if b, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, parts...)...)); err == nil {
		f.Add(b)
	}
}

// seedLines adds the first n lines of a JSONL file, one by one and together.
func seedLines(f *testing.F, n int, parts ...string) {
	fh, err := os.Open(filepath.Join(append([]string{"..", ".."}, parts...)...))
	if err != nil {
		return
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var all bytes.Buffer
	for i := 0; i < n && sc.Scan(); i++ {
		f.Add(append([]byte(nil), sc.Bytes()...))
		all.Write(sc.Bytes())
		all.WriteByte('\n')
	}
	f.Add(all.Bytes())
}

var fuzzMu sync.Mutex // the handlers share one store per target

func FuzzVerdictBody(f *testing.F) {
	s := fuzzServer(f)
	f.Add([]byte(`{"tenantId": "t1", "agentId": "bad", "method": "tools/call"}`))
	f.Add([]byte(`{"tenantId": "t1", "agentId": "a", "method": "ping", "shadow": true}`))
	f.Add([]byte(`{"tenantId": "t1", "TENANTID": "t2", "agentId": "a", "method": "m"}`))
	f.Add([]byte(`{"tenantId": ["t1"], "agentId": {"a": 1}}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzCall(t, s, "POST", "/verdict", body)
	})
}

func FuzzRiskConfigBody(f *testing.F) {
	s := fuzzServer(f)
	seedFile(f, "examples", "agents", "risk-config.json")
	f.Add([]byte(lowThresholds))
	f.Add([]byte(`{"rateLimit": {"limit": 3, "windowSeconds": 3600}, "weights": {"injection": 0.5}}`))
	f.Add([]byte(`{"elevatedThreshold": 500}`))
	f.Add([]byte("enabled: true\n"))
	f.Add([]byte(`{"criticalAllowedMethods": [[[["x"]]]]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzMu.Lock()
		defer fuzzMu.Unlock()
		fuzzCall(t, s, "PUT", "/tenants/t1/risk-config", body)
	})
}

func FuzzAlertRuleBody(f *testing.F) {
	s := fuzzServer(f)
	f.Add([]byte(`{"id": "crit", "tier": "critical", "channel": "webhook", "url": "https://hooks.example.com/lf", "secretName": "hook"}`))
	f.Add([]byte(`{"id": "s85", "threshold": 85, "channel": "email", "to": ["oncall@example.com"]}`))
	f.Add([]byte(`{"threshold": 1, "channel": "webhook", "url": "http://169.254.169.254/", "secretName": "hook"}`))
	f.Add([]byte(`{"tier": "high", "channel": "webhook", "url": "https://x.example/", "secretEnv": "LF_ADMIN_KEY"}`))
	f.Add([]byte(`{"alert_rules": []}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzMu.Lock()
		defer fuzzMu.Unlock()
		fuzzCall(t, s, "POST", "/tenants/t1/alert-rules", body)
	})
}

func FuzzEventsBody(f *testing.F) {
	s := fuzzServer(f)
	seedLines(f, 5, "examples", "agents", "events.jsonl")
	f.Add([]byte(events("t1", 2)))
	f.Add([]byte(`[{"timestamp": "2026-04-16T14:00:00Z", "tenant_id": "t1", "agent_id": "a"}]`))
	f.Add([]byte(`{"timestamp": "0001-01-01T00:00:00Z", "tenant_id": "t1", "agent_id": "a"}`))
	f.Add([]byte(`{"timestamp": "2026-04-16T14:00:00Z", "tenant_id": "t2", "agent_id": "a"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzMu.Lock()
		defer fuzzMu.Unlock()
		fuzzCall(t, s, "POST", "/tenants/t1/events", body)
	})
}

// FuzzScanBody: the scanner never accepts what encoding/json refuses, and
// never panics, whatever the shape.
func FuzzScanBody(f *testing.F) {
	f.Add([]byte(`{"tenantId": "t", "agentId": "a", "method": "m"}`), uint8(0))
	f.Add([]byte(`[{"agent_id": "a"}]`), uint8(3))
	f.Add([]byte("{\"agent_id\": \"a\"}\n{\"agent_id\": \"b\"}"), uint8(4))
	f.Add([]byte(`{"rateLimit": {"limit": 1, "windowSeconds": 2}}`), uint8(1))
	f.Add([]byte(`{"to": ["a@b"], "secretName": "s"}`), uint8(2))
	shapes := []*shape{verdictShape, riskConfigShape, ruleShape, eventsShape, eventsShape}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		i := int(which) % len(shapes)
		stream := i == 4
		var err *bodyError
		fuzzcheck.Bounded(t, len(body), func() { err = scanBody(body, shapes[i], stream) })
		if err == nil && !stream && !json.Valid(body) {
			t.Fatalf("scanBody accepted invalid JSON %q", body)
		}
		if err != nil && quickScan(body, shapes[i], stream) {
			t.Fatalf("quickScan passed what scanBody refuses (%s): %q", err.Msg, body)
		}
	})
}
