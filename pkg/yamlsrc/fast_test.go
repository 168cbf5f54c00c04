package yamlsrc

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

// agree checks that the fast path, when it takes data, gives the value,
// positions and key order goccy gives.
func agree(t *testing.T, name string, data []byte) bool {
	t.Helper()
	if _, ok := parseFast(data); !ok {
		return false
	}
	slow, ds := parse(name, data, false)
	if len(ds) != 0 {
		t.Errorf("%s: the fast path took a file goccy rejects: %v", name, ds)
		return true
	}
	fast, _ := parse(name, data, true)
	if fast.src == nil {
		t.Fatalf("%s: fast path not taken", name)
	}
	if !reflect.DeepEqual(fast.Value, slow.Value) {
		t.Errorf("%s: values differ:\nfast %#v\nslow %#v", name, fast.Value, slow.Value)
		return true
	}
	// Handing items over one at a time changes nothing when the hook
	// keeps them.
	n := 0
	each, _, streamed := ParseEach(name, data, "evaluation_runs", func(i int, v any) any {
		if i != n {
			t.Errorf("%s: item %d handed as %d", name, n, i)
		}
		n++
		return v
	})
	if !streamed || !reflect.DeepEqual(each.Value, slow.Value) {
		t.Errorf("%s: ParseEach (streamed %v) gives other values than goccy", name, streamed)
	}
	fast.lazy()
	for p, want := range slow.pos {
		if got := fast.pos[p]; got != want {
			t.Errorf("%s: pos %q: fast %v, goccy %v", name, p, got, want)
		}
	}
	for p, want := range slow.keyPos {
		if got := fast.keyPos[p]; got != want {
			t.Errorf("%s: key pos %q: fast %v, goccy %v", name, p, got, want)
		}
	}
	for p, want := range slow.order {
		if got := fast.order[p]; !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: order %q: fast %v, goccy %v", name, p, got, want)
		}
	}
	if len(fast.pos) != len(slow.pos) || len(fast.keyPos) != len(slow.keyPos) {
		t.Errorf("%s: fast records %d/%d positions, goccy %d/%d", name, len(fast.pos), len(fast.keyPos), len(slow.pos), len(slow.keyPos))
	}
	return true
}

// corpus is every YAML file of the repository, in files and in testscripts.
func corpus(t testing.TB) map[string][]byte {
	root := "../.."
	out := map[string][]byte{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".yaml"), strings.HasSuffix(p, ".yml"):
			b, _ := os.ReadFile(p)
			out[p] = b
		case strings.HasSuffix(p, ".txtar"):
			a, err := txtar.ParseFile(p)
			if err != nil {
				return nil
			}
			for _, f := range a.Files {
				out[p+":"+f.Name] = f.Data
			}
		}
		return nil
	})
	return out
}

func TestFastAgreesWithGoccy(t *testing.T) {
	taken := 0
	files := corpus(t)
	for name, data := range files {
		if agree(t, name, data) {
			taken++
		}
	}
	gen := generatedRuns(200)
	if !agree(t, "generated", gen) {
		t.Errorf("the fast path refused the generated runs file")
	}
	t.Logf("fast path took %d of %d corpus files", taken, len(files))
	if taken < 15 {
		t.Errorf("fast path took only %d files", taken)
	}
}

// generatedRuns is a runs file shaped like lf's benchmarks.
func generatedRuns(n int) []byte {
	var b strings.Builder
	b.WriteString("evaluation_runs:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - evaluation_key: eval-%d\n    id: run-%d\n    created_at: \"2026-01-15T09:00:00Z\"\n    status: completed\n    results:\n", i%10, i)
		for t := 0; t < 5; t++ {
			fmt.Fprintf(&b, "      - task_specification_key: task-%d\n        scorer_key: 'exact_match'\n        metrics:\n          accuracy: 0.%03d\n          count: %d\n", t, (i*7+t)%1000, i)
		}
	}
	return []byte(b.String())
}

func FuzzFast(f *testing.F) {
	for _, data := range corpus(f) {
		f.Add(data)
	}
	f.Add(generatedRuns(2))
	f.Add(generatedFlowRuns(2))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			if len(data) > 4096 {
				return
			}
			agree(t, "fuzz", data)
		})
	})
}
