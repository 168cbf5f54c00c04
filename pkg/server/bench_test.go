package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lfcli/lf/pkg/store"
)

// BenchmarkVerdictHandler measures the in-process cost of POST /verdict
// (auth, JSON, cached state, rate counter, Decide, JSON) without the network.
func BenchmarkVerdictHandler(b *testing.B) {
	s := benchServer(b)
	h := s.Handler()
	body := []byte(`{"tenantId":"t1","agentId":"agent-1","method":"tools/call"}`)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest("POST", "/verdict", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+keyT1)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	})
}

// BenchmarkVerdictLoopback is POST /verdict over a loopback connection with
// keep-alive (closed loop; see loadgen for the open-loop figures).
func BenchmarkVerdictLoopback(b *testing.B) {
	s := benchServer(b)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	client := srv.Client()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			req, _ := http.NewRequest("POST", srv.URL+"/verdict", bytes.NewReader([]byte(fmt.Sprintf(`{"tenantId":"t1","agentId":"agent-%d","method":"tools/call"}`, i%50))))
			req.Header.Set("Authorization", "Bearer "+keyT1)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatal(resp.Status)
			}
		}
	})
}

func benchServer(b *testing.B) *Server {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, b.TempDir()+"/lf.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	cfg, d := LoadConfig("server.yaml", []byte("apiKeys: [{name: t1, tenant: t1, role: operator, key: "+keyT1+"}]\n"), func(string) string { return "" })
	if d.HasErrors() {
		b.Fatal(d)
	}
	s, err := New(ctx, cfg, st, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(ctx) })
	return s
}
