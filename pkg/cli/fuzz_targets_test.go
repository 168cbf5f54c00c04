package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestFuzzTargetsListed: every Fuzz function of the module is in the
// Taskfile's FUZZ_TARGETS (what `task fuzz` runs), and every entry there
// names a Fuzz function that exists, so a new parser's fuzz target cannot be
// left out of the fuzzing runs.
func TestFuzzTargetsListed(t *testing.T) {
	root := testfiles.RepoRoot()
	if root == "" {
		t.Skip("repository root not found")
	}
	found := map[string]bool{}
	fset := token.NewFileSet()
	walkGoFiles(t, root, true, func(rel string) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
				found[filepath.Dir(rel)+":"+fn.Name.Name] = true
			}
		}
	})
	listed := taskfileFuzzTargets(t, filepath.Join(root, "Taskfile.yml"))
	var missing, stale []string
	for k := range found {
		if !listed[k] {
			missing = append(missing, k)
		}
	}
	for k := range listed {
		if !found[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("fuzz targets not in the Taskfile's FUZZ_TARGETS (task fuzz would skip them): %v", missing)
	}
	if len(stale) > 0 {
		t.Errorf("FUZZ_TARGETS names targets that do not exist: %v", stale)
	}
	if len(found) < 10 {
		t.Fatalf("only %d fuzz targets found under %s", len(found), root)
	}
}

var fuzzTarget = regexp.MustCompile(`^\s+(pkg/[a-z0-9/]+:Fuzz\w+)\s*$`)

// taskfileFuzzTargets reads the FUZZ_TARGETS list of the Taskfile.
func taskfileFuzzTargets(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "FUZZ_TARGETS:"):
			in = true
		case in && fuzzTarget.MatchString(l):
			out[fuzzTarget.FindStringSubmatch(l)[1]] = true
		case in:
			in = false
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no FUZZ_TARGETS list", path)
	}
	return out
}
