package cli_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/lfcli/lf/pkg/cli"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

type ptyOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (p *ptyOutput) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.Write(b)
}

func (p *ptyOutput) String() string {
	time.Sleep(300 * time.Millisecond)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

// onTerminal runs run with standard error on a pseudo-terminal and returns
// what the terminal got and run's exit code; it skips the test where no
// pseudo-terminal can be opened.
func onTerminal(t *testing.T, run func(stderr io.Writer) int) (string, int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	term := &ptyOutput{}
	go func() { _, _ = io.Copy(term, ptmx) }()
	code := run(tty)
	return term.String(), code
}

// onPipe runs run with standard error a pipe and returns what the pipe got.
func onPipe(t *testing.T, run func(stderr io.Writer) int) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	run(w)
	w.Close()
	piped, _ := io.ReadAll(r)
	return string(piped)
}

// TestScanProgressOnTerminal runs lf agentleak scan with standard error on a
// pseudo-terminal: progress appears there; with --quiet, or with standard
// error a pipe, nothing does.
func TestScanProgressOnTerminal(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	traces := filepath.Join(root, "project", "agentleak", "traces.jsonl")
	t.Setenv("LF_PROGRESS_AFTER", "0s") // the demo scan is faster than the usual second
	t.Setenv("LF_QUIET", "")
	run := func(extra ...string) func(io.Writer) int {
		return func(stderr io.Writer) int {
			args := append([]string{"lf", "agentleak", "scan", "--no-record", "--workers", "1", "-o", "jsonl"}, extra...)
			return cli.Run(append(args, traces), strings.NewReader(""), io.Discard, stderr)
		}
	}
	if out, _ := onTerminal(t, run()); !strings.Contains(out, "scanning traces") {
		t.Errorf("no progress on the terminal; it got %q", out)
	}
	if out, _ := onTerminal(t, run("--quiet")); strings.Contains(out, "scanning traces") {
		t.Errorf("--quiet still showed progress: %q", out)
	}
	if piped := onPipe(t, run()); strings.Contains(piped, "scanning") {
		t.Errorf("progress written to a pipe: %q", piped)
	}
}

// TestIngestProgressOnTerminal: lf agents ingest shows bytes read on a
// terminal.
func TestIngestProgressOnTerminal(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	t.Setenv("LF_PROGRESS_AFTER", "0s")
	t.Setenv("LF_QUIET", "")
	t.Setenv("LF_STORE", filepath.Join(t.TempDir(), "lf.db"))
	out, code := onTerminal(t, func(stderr io.Writer) int {
		return cli.Run([]string{"lf", "agents", "ingest", filepath.Join(root, "project", "agents", "events.jsonl")}, strings.NewReader(""), io.Discard, stderr)
	})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "reading events") {
		t.Errorf("no progress on the terminal; it got %q", out)
	}
}

// TestValidateProgressOnTerminal: lf validate shows the bytes it has checked
// on a terminal, and nothing when standard error is a pipe.
func TestValidateProgressOnTerminal(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	t.Setenv("LF_PROGRESS_AFTER", "0s")
	t.Setenv("LF_QUIET", "")
	t.Setenv("LF_STORE", filepath.Join(t.TempDir(), "lf.db"))
	run := func(extra ...string) func(io.Writer) int {
		return func(stderr io.Writer) int {
			args := append([]string{"lf", "validate"}, extra...)
			return cli.Run(append(args, filepath.Join(root, "project")), strings.NewReader(""), io.Discard, stderr)
		}
	}
	out, code := onTerminal(t, run())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "validating files") {
		t.Errorf("no progress on the terminal; it got %q", out)
	}
	if out, _ := onTerminal(t, run("--quiet")); strings.Contains(out, "validating") {
		t.Errorf("--quiet still showed progress: %q", out)
	}
	if piped := onPipe(t, run()); strings.Contains(piped, "validating") {
		t.Errorf("progress written to a pipe: %q", piped)
	}
}

// TestImportProgressOnTerminal: lf import shows the bytes it has imported on
// a terminal, and nothing with --quiet.
func TestImportProgressOnTerminal(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	files, _ := filepath.Glob(filepath.Join(root, "pkg", "importers", "testdata", "promptfoo", "*.json"))
	if len(files) == 0 {
		t.Skip("no promptfoo test files")
	}
	t.Setenv("LF_PROGRESS_AFTER", "0s")
	t.Setenv("LF_QUIET", "")
	for _, quiet := range []bool{false, true} {
		t.Setenv("LF_STORE", filepath.Join(t.TempDir(), "lf.db"))
		args := []string{"lf", "import"}
		if quiet {
			args = append(args, "--quiet")
		}
		args = append(args, "promptfoo", files[0])
		out, code := onTerminal(t, func(stderr io.Writer) int {
			return cli.Run(args, strings.NewReader(""), io.Discard, stderr)
		})
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if shown := strings.Contains(out, "importing results"); shown == quiet {
			t.Errorf("%v: progress shown %v; the terminal got %q", args, shown, out)
		}
	}
}
