package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// openPTY gives a pseudo-terminal: tty is what a program writes to, ptmx
// what a terminal emulator reads.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal available: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return ptmx, tty
}

// terminal collects what a terminal emulator reading ptmx would receive.
type terminal struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.Write(p)
}

// output waits for the writer to settle and returns what arrived.
func (t *terminal) output() string {
	time.Sleep(300 * time.Millisecond)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

func listen(ptmx *os.File) *terminal {
	term := &terminal{}
	go func() { _, _ = io.Copy(term, ptmx) }()
	return term
}

func TestShowsOnTerminal(t *testing.T) {
	ptmx, tty := openPTY(t)
	term := listen(ptmx)
	b := New(tty, Options{Description: "scanning traces", Total: 10, After: time.Nanosecond})
	for i := 0; i < 10; i++ {
		time.Sleep(2 * time.Millisecond)
		b.Add(1)
	}
	if !b.Shown() {
		t.Fatal("progress did not appear on a terminal")
	}
	out := term.output()
	b.Finish()
	if !strings.Contains(out, "scanning traces") {
		t.Errorf("terminal got %q, want the description", out)
	}
}

func TestWaitsBeforeShowing(t *testing.T) {
	_, tty := openPTY(t)
	t.Setenv("LF_PROGRESS_AFTER", "")
	b := New(tty, Options{Description: "quick", Total: 3, After: time.Hour})
	b.Add(3)
	if b.Shown() {
		t.Error("progress appeared before its delay")
	}
}

func TestSilentInPipeAndWhenQuiet(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := New(w, Options{Description: "piped", Total: 5, After: time.Nanosecond})
	for i := 0; i < 5; i++ {
		time.Sleep(time.Millisecond)
		b.Add(1)
	}
	b.Finish()
	w.Close()
	got, _ := io.ReadAll(r)
	if len(got) != 0 {
		t.Errorf("a pipe got %q", got)
	}
	ptmx, tty := openPTY(t)
	term := listen(ptmx)
	q := New(tty, Options{Description: "quiet", Total: 5, Quiet: true, After: time.Nanosecond})
	q.Add(5)
	q.Finish()
	if out := term.output(); out != "" {
		t.Errorf("quiet progress wrote %q", out)
	}
}

func TestQuietEnv(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "yes": true} {
		if got := Quiet(func(string) string { return v }); got != want {
			t.Errorf("LF_QUIET=%q: quiet %v, want %v", v, got, want)
		}
	}
}
