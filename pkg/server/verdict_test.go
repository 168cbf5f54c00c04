package server

import (
	"bytes"
	"context"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestVerdictFastPathMatchesEncodingJSON sends the same bodies through the
// fast path and through encoding/json only: status, headers and bodies must
// be identical, for good bodies and for every kind of bad one.
func TestVerdictFastPathMatchesEncodingJSON(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, testConfig(t, ""))
	defer s.Close(ctx)
	h := s.Handler()
	bodies := []string{
		`{"tenantId":"t1","agentId":"a","method":"tools/call"}`,
		` { "method" : "ping" , "agentId":"a b", "tenantId":"t1", "shadow": true }` + "\n",
		`{"tenantId":"t1","agentId":"a","method":"tools/call","shadow":false}`,
		`{"tenantId":"t1","agentId":"a","method":"tools/call","shadow":true,"shadow":false}`,
		`{"tenantId":"t1","agentId":"a","agentId":"b","method":"m"}`,
		`{"tenantId":"t1","agentId":"\u00e9t\u00e9","method":"m"}`,
		`{"tenantId":"t1","agentId":"été","method":"m"}`,
		`{"tenantId":"t1","agentId":"a\"b","method":"m"}`,
		`{"tenantId":"t1","agentId":"a<b>&","method":"m"}`,
		`{"tenantId":"t1","agentId":"a\u2028","method":"m"}`,
		`{"TenantID":"t1","agentId":"a","method":"m"}`,
		`{"tenantId":"t1","agentId":"a","method":"m","extra":1}`,
		`{"tenantId":"t1","agentId":"a","method":"m"} {}`,
		`{"tenantId":"t1","agentId":"a","method":"m"}x`,
		`{"tenantId":"t2","agentId":"a","method":"m"}`,
		`{"tenantId":"t1","agentId":"","method":"m"}`,
		`{"tenantId":"t1","agentId":" ","method":"m"}`,
		`{"tenantId":"t1","agentId":"a"}`,
		`{"tenantId":"t1","agentId":null,"method":"m"}`,
		`{"tenantId":"t1","agentId":7,"method":"m"}`,
		`{"tenantId":"t1","agentId":"a","method":"m","shadow":"yes"}`,
		`{"tenantId":"t1","agentId":"a","method":"m","shadow":tru}`,
		`{"tenantId":"t1","agentId":{"x":1},"method":"m"}`,
		`{}`, `[]`, `null`, ``, `{`, `"x"`, `{"tenantId":"t1",}`, `{,}`, `{"tenantId" "t1"}`,
	}
	rng := rand.New(rand.NewSource(3))
	base := []byte(bodies[1])
	for i := 0; i < 3000; i++ {
		b := append([]byte(nil), base...)
		for k := 0; k <= rng.Intn(3); k++ {
			switch j := rng.Intn(len(b)); rng.Intn(3) {
			case 0:
				b[j] = byte(rng.Intn(128))
			case 1:
				b = append(b[:j], b[j+1:]...)
			default:
				b = append(b[:j], append([]byte{`"{}:,\ tf`[rng.Intn(9)]}, b[j:]...)...)
			}
		}
		bodies = append(bodies, string(b))
	}
	call := func(body string, fast bool) (int, string, string) {
		verdictFastPath = fast
		defer func() { verdictFastPath = true }()
		req := httptest.NewRequest("POST", "/verdict", bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+keyT1)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code, w.Header().Get("Content-Type") + " " + w.Header().Get("Content-Length"), w.Body.String()
	}
	fastOK := 0
	for _, body := range bodies {
		c1, h1, b1 := call(body, true)
		c2, h2, b2 := call(body, false)
		if c1 != c2 || h1 != h2 || b1 != b2 {
			t.Fatalf("body %q:\nfast %d %s %s\njson %d %s %s", body, c1, h1, b1, c2, h2, b2)
		}
		var req verdictRaw
		if c1 == 200 && parseVerdictFast([]byte(body), &req) {
			fastOK++
		}
	}
	if fastOK < 100 {
		t.Errorf("only %d bodies took the fast path", fastOK)
	}
}

// BenchmarkVerdictServe is the server side of a verdict without the cost of
// building the test request: allocations per request of the handler chain.
func BenchmarkVerdictServe(b *testing.B) {
	s := benchServer(b)
	h := s.Handler()
	body := []byte(`{"tenantId":"t1","agentId":"agent-1","method":"tools/call"}`)
	req := httptest.NewRequest("POST", "/verdict", nil)
	req.Header.Set("Authorization", "Bearer "+keyT1)
	w := &discardWriter{h: map[string][]string{}}
	rd := bytes.NewReader(body)
	for _, fast := range []bool{true, false} {
		name := map[bool]string{true: "fast", false: "encoding-json"}[fast]
		b.Run(name, func(b *testing.B) {
			verdictFastPath = fast
			defer func() { verdictFastPath = true }()
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(body)
				req.Body = io.NopCloser(rd)
				req.ContentLength = int64(len(body))
				clear(w.h)
				h.ServeHTTP(w, req)
				if w.code != 200 {
					b.Fatal(w.code)
				}
			}
		})
	}
}

type discardWriter struct {
	h    map[string][]string
	code int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(c int)           { d.code = c }

// TestVerdictAllocations keeps the server's side of a verdict for a cached
// agent free of allocations (the garbage collector's pauses are the tail of
// the latency); the request and the response writer here are reused.
func TestVerdictAllocations(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector allocates")
	}
	ctx := context.Background()
	s := newServer(t, testConfig(t, ""))
	defer s.Close(ctx)
	h := s.Handler()
	body := []byte(`{"tenantId":"t1","agentId":"agent-1","method":"tools/call"}`)
	req := httptest.NewRequest("POST", "/verdict", nil)
	req.Header.Set("Authorization", "Bearer "+keyT1)
	w := &discardWriter{h: map[string][]string{}}
	rd := bytes.NewReader(body)
	body2 := io.NopCloser(rd)
	n := testing.AllocsPerRun(200, func() {
		rd.Reset(body)
		req.Body, req.ContentLength = body2, int64(len(body))
		clear(w.h)
		h.ServeHTTP(w, req)
		if w.code != 200 {
			t.Fatal(w.code)
		}
	})
	if n > 0 {
		t.Errorf("%v allocations per verdict, want 0", n)
	}
}
