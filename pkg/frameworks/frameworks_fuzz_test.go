package frameworks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
	"github.com/lfcli/lf/pkg/risk"
)

// FuzzFrameworks: any input gives frameworks or located diagnostics, and
// evaluating what was accepted never panics.
func FuzzFrameworks(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "frameworks", "*.yaml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(testFile))
	f.Add([]byte("frameworks: [{key: a, name: A, requirements: [{key: r, title: T, evidence: {}}]}]"))
	res := []risk.Result{scored("low1", "d1", risk.Low), scored("high1", "d2", risk.High)}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		fuzzcheck.Bounded(t, len(data), func() {
			s, ds := readSet(dir, data)
			if ds.HasErrors() {
				return
			}
			_ = s.Check(res)
			if _, err := s.Evaluate("", res); err != nil {
				t.Fatal(err)
			}
		})
	})
}
