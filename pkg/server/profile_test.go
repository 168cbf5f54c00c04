package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// TestServeForProfile runs the server in-process for a load generator and
// writes a CPU profile of it (and a heap profile next to it), so that
// latency can be traced to code:
//
//	LF_SERVE_PROFILE=/tmp/cpu.out LF_SERVE_ADDR=127.0.0.1:18081 LF_SERVE_SECONDS=25 go test ./pkg/server -run TestServeForProfile -v &
//	go run ./cmd/lfgen loadgen -addr 127.0.0.1:18081 -key t1-key-0123456789abcdef -tenant t1 -rate 5000 -duration 20s
//
// LF_SERVE_FLOOR=1 serves a constant answer instead (net/http and loopback
// alone: the floor under lf's verdict). Skipped unless LF_SERVE_PROFILE is set.
func TestServeForProfile(t *testing.T) {
	out := os.Getenv("LF_SERVE_PROFILE")
	if out == "" {
		t.Skip("set LF_SERVE_PROFILE=FILE (and LF_SERVE_ADDR, LF_SERVE_SECONDS) to profile the server under an external load")
	}
	addr := os.Getenv("LF_SERVE_ADDR")
	if addr == "" {
		addr = "127.0.0.1:18081"
	}
	secs, _ := strconv.Atoi(os.Getenv("LF_SERVE_SECONDS"))
	if secs <= 0 {
		secs = 25
	}
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir()+"/lf.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := New(ctx, testConfig(t, ""), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LF_SERVE_FLOOR") == "1" {
		// The floor: net/http over loopback answering a constant verdict,
		// without auth, JSON, state or rate counter.
		body := []byte(`{"tenantId":"t1","agentId":"agent-1","score":0,"scored":false,"tier":"normal","effectiveTier":"normal","action":"allow","reason":"","multiplier":1,"shadow":false,"loggedOnly":false}` + "\n")
		hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header()["Content-Type"] = jsonContentType
			w.Write(body)
		})}
		go hs.Serve(ln)
		time.Sleep(time.Duration(secs) * time.Second)
		hs.Close()
		return
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second)
	defer cancel()
	if err := s.Serve(sctx, ln, 5*time.Second); err != nil {
		t.Error(err)
	}
	pprof.StopCPUProfile()
	f.Close()
	if h, err := os.Create(out + ".heap"); err == nil {
		pprof.Lookup("allocs").WriteTo(h, 0)
		h.Close()
	}
}
