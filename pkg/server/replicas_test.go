package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// Replica tests run `lf serve` processes built from ./cmd/lf on one
// PostgreSQL database (pkg/store/postgres/pgtest gives each test its own),
// so that kill -9 is a real process death.

var lfBin struct {
	once sync.Once
	path string
	err  error
}

// waitingParallel is how many parallel tests run at once unless
// -test.parallel says otherwise: this package's parallel tests mostly wait
// on child processes, timeouts and shutdowns, and the default (GOMAXPROCS,
// two on a 2-core machine) kept the waiting ones queued behind the two
// longest.
const waitingParallel = 8

// TestMain runs up to waitingParallel parallel tests at once and removes
// the lf binary the replica tests built.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(runtime.GOMAXPROCS(0), waitingParallel)))
	}
	code := m.Run()
	if lfBin.path != "" {
		os.RemoveAll(filepath.Dir(lfBin.path))
	}
	os.Exit(code)
}

// buildLF builds ./cmd/lf once per test binary.
func buildLF(t *testing.T) string {
	t.Helper()
	lfBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "lf-replicas-bin-")
		if err != nil {
			lfBin.err = err
			return
		}
		lfBin.path = filepath.Join(dir, "lf")
		cmd := exec.Command("go", "build", "-o", lfBin.path, "./cmd/lf")
		cmd.Dir = testfiles.RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			lfBin.err = fmt.Errorf("go build ./cmd/lf: %v\n%s", err, out)
		}
	})
	if lfBin.err != nil {
		t.Fatal(lfBin.err)
	}
	return lfBin.path
}

// syncBuffer is a log collected from a process's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// replica is one `lf serve` process.
type replica struct {
	name string
	cmd  *exec.Cmd
	base string
	log  *syncBuffer
	done chan struct{}
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startReplica starts `lf serve` on the store url with the project dir's
// server.yaml and waits until it listens.
func startReplica(t *testing.T, name, dir, storeURL string, args ...string) *replica {
	t.Helper()
	bin := buildLF(t)
	cmd := exec.Command(bin, append([]string{"--project", dir, "serve", "--addr", "127.0.0.1:0", "--grace", "2s"}, args...)...)
	cmd.Env = append(os.Environ(), "LF_STORE="+storeURL)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{name: name, cmd: cmd, log: &syncBuffer{}, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			r.log.Write([]byte(line + "\n"))
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() {
		cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() { r.stop() })
	select {
	case r.base = <-addr:
	case <-r.done:
		t.Fatalf("%s exited before listening:\n%s", name, r.log)
	case <-time.After(30 * time.Second):
		r.kill()
		t.Fatalf("%s does not listen after 30s:\n%s", name, r.log)
	}
	return r
}

// kill is kill -9.
func (r *replica) kill() {
	r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.done
}

// stop is a graceful stop (SIGTERM), then kill after 10s.
func (r *replica) stop() {
	select {
	case <-r.done:
		return
	default:
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.kill()
	}
}

// call sends a request with key and decodes a JSON answer into out (when
// not nil); it returns the status.
func (r *replica) call(t *testing.T, key, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, r.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, r.name, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s on %s: %d %s: %v", method, path, r.name, res.StatusCode, b, err)
		}
	}
	return res.StatusCode
}

func (r *replica) health(t *testing.T) Health {
	t.Helper()
	var h Health
	if st := r.call(t, keyAdmin, "GET", "/healthz", nil, &h); st != 200 {
		t.Fatalf("healthz on %s: %d", r.name, st)
	}
	return h
}

// replicaProject writes a project folder with server.yaml (the tenant
// admin and global admin keys of testConfig, t1's webhook secret "hook",
// plus extra).
func replicaProject(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	y := `apiKeys:
  - {name: t1-admin, tenant: t1, role: admin, key: ` + keyT1 + `}
  - {name: t2-admin, tenant: t2, role: admin, key: ` + keyT2 + `}
  - {name: ops, admin: true, key: ` + keyAdmin + `}
secrets:
  - {name: hook, tenant: t1, value: whsec-0123456789}
` + extra
	if err := os.WriteFile(filepath.Join(dir, "server.yaml"), []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitFor polls cond every 10ms until it holds or d passed; it returns how
// long that took.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

func verdictOn(t *testing.T, r *replica, tenant, agent string) VerdictResponse {
	t.Helper()
	var v VerdictResponse
	key := keyT1
	if tenant == "t2" {
		key = keyT2
	}
	if st := r.call(t, key, "POST", "/verdict", VerdictRequest{TenantID: tenant, AgentID: agent, Method: "tools/call"}, &v); st != 200 {
		t.Fatalf("verdict on %s: %d", r.name, st)
	}
	return v
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
