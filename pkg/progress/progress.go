// Package progress shows the progress of long work (scanning, importing,
// ingesting, validating) on standard error: items, bytes, rate and time left,
// drawn by schollz/progressbar. It shows only on a terminal, only once the
// work has taken longer than a second, and never when quiet; in a pipe or a
// CI log it writes nothing.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// DefaultAfter is how long work runs before progress appears: quick commands
// stay quiet.
const DefaultAfter = time.Second

// Options describe a progress display.
type Options struct {
	// Description names the work ("scanning traces").
	Description string
	// Total is the number of items (or bytes with Bytes), -1 when unknown.
	Total int64
	// Bytes counts bytes rather than items.
	Bytes bool
	// Quiet turns the display off (--quiet, LF_QUIET).
	Quiet bool
	// After is the delay before the display appears (0: DefaultAfter;
	// LF_PROGRESS_AFTER overrides it, for tests and demos).
	After time.Duration
}

// Bar reports progress. The zero of a Bar that will never show costs a
// mutex and a clock read per call.
type Bar struct {
	mu      sync.Mutex
	w       io.Writer
	opt     Options
	start   time.Time
	n       int64
	bar     *progressbar.ProgressBar
	enabled bool
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Quiet reports whether the environment turns progress off: LF_QUIET set to
// anything but "", "0" or "false".
func Quiet(getenv func(string) string) bool {
	v := getenv("LF_QUIET")
	return v != "" && v != "0" && v != "false"
}

// New returns a Bar writing to w (standard error). It draws nothing unless
// w is a terminal and opt.Quiet is false.
func New(w io.Writer, opt Options) *Bar {
	if opt.After == 0 {
		opt.After = DefaultAfter
	}
	if d, err := time.ParseDuration(os.Getenv("LF_PROGRESS_AFTER")); err == nil {
		opt.After = d
	}
	return &Bar{w: w, opt: opt, start: time.Now(), enabled: !opt.Quiet && IsTerminal(w)}
}

// Add records n more items (or bytes).
func (b *Bar) Add(n int64) {
	if b == nil || !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += n
	if b.bar == nil {
		if time.Since(b.start) < b.opt.After {
			return
		}
		b.bar = b.newBar()
		// Draw at once: the throttle would otherwise hide a bar whose
		// work ends within its first interval.
		_ = b.bar.RenderBlank()
		_ = b.bar.Set64(b.n)
		return
	}
	_ = b.bar.Add64(n)
}

// SetTotal sets the total once it is known.
func (b *Bar) SetTotal(total int64) {
	if b == nil || !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opt.Total = total
	if b.bar != nil {
		b.bar.ChangeMax64(total)
	}
}

// Finish clears the display, leaving the terminal as it was.
func (b *Bar) Finish() {
	if b == nil || !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Finish()
		_ = b.bar.Clear()
		b.bar = nil
	}
	b.enabled = false
}

// Shown reports whether the display has appeared.
func (b *Bar) Shown() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bar != nil
}

func (b *Bar) newBar() *progressbar.ProgressBar {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription(b.opt.Description),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionFullWidth(),
	}
	if b.opt.Bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionSetItsString("items"))
	}
	total := b.opt.Total
	if total <= 0 {
		total = -1
	}
	return progressbar.NewOptions64(total, opts...)
}

// Reader returns r counting the bytes read from it on b (for Bytes bars).
func (b *Bar) Reader(r io.Reader) io.Reader {
	if b == nil || !b.enabled {
		return r
	}
	return &countingReader{r: r, b: b}
}

type countingReader struct {
	r io.Reader
	b *Bar
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.b.Add(int64(n))
	}
	return n, err
}
