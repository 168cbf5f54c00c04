// Package fuzzcheck holds what every fuzz target of lf checks besides "no
// panic": that one input is handled in bounded time and bounded memory, and
// the seeding of targets from the repository's examples and the shared
// fixtures.
package fuzzcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// The bounds one input must stay within. An input of n bytes may allocate
// BaseBytes + n*BytesPerByte in total (garbage included) and take
// MaxDuration; parsers that grow faster than linearly (the quadratic YAML
// nesting of issue 15, S1) exceed this within a few kilobytes.
const (
	BaseBytes    = 64 << 20
	BytesPerByte = 4096
	MaxDuration  = 5 * time.Second
)

var sample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

func allocated() uint64 {
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// HangAfter is how long one input may run before Bounded stops the process:
// Go's fuzzing engine does not notice a worker that never returns (it ends
// the run at -fuzztime and reports PASS), so a hang must crash to be found
// and its input saved under testdata/fuzz.
const HangAfter = 4 * MaxDuration

// Bounded runs fn on an input of n bytes and fails t when it allocates or
// takes more than the bounds allow; an input still running after HangAfter
// crashes the process with every goroutine's stack. Fuzz workers run one
// input at a time, so the process-wide allocation counter measures fn.
func Bounded(t testing.TB, n int, fn func()) {
	t.Helper()
	a0, t0 := allocated(), time.Now()
	hang := time.AfterFunc(HangAfter, func() {
		debug.SetTraceback("all")
		panic(fmt.Sprintf("fuzzcheck: an input of %d bytes still runs after %v", n, HangAfter))
	})
	defer hang.Stop()
	fn()
	da, dt := allocated()-a0, time.Since(t0)
	if limit := uint64(BaseBytes) + uint64(n)*BytesPerByte; da > limit {
		t.Fatalf("an input of %d bytes allocated %d bytes (bound %d)", n, da, limit)
	}
	if dt > MaxDuration {
		t.Fatalf("an input of %d bytes took %v (bound %v)", n, dt, MaxDuration)
	}
}

// AddFiles adds each file as a seed; paths are relative to the repository
// root. Files that are missing (the shared folder is optional) are skipped.
func AddFiles(f *testing.F, paths ...string) {
	root := testfiles.RepoRoot()
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// AddGlob adds every file matching pattern (relative to the repository
// root) as a seed.
func AddGlob(f *testing.F, pattern string) {
	m, _ := filepath.Glob(filepath.Join(testfiles.RepoRoot(), pattern))
	AddFiles(f, m...)
}

// AddExampleYAML adds every YAML file under examples/ and project/.
func AddExampleYAML(f *testing.F) {
	AddFiles(f, testfiles.ExampleYAML()...)
}
