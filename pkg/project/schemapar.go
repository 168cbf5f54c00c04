package project

import (
	"runtime"
	"sync"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/schema"
)

// parallelSchemaMin is the file size from which a file's runs are checked
// against the schema on several cores.
var parallelSchemaMin = 4 << 20 // a variable for tests

// validate checks f against schemas/<name>.schema.json. A large file of
// runs (issue 9, item 19: 764,500 values in 50 MB) is first checked in
// parts on every core: the project schema puts no constraint on
// evaluation_runs as a whole, only on each item, so the file is valid
// exactly when every part is. Only when a part has a problem is the file
// checked again as a whole, for the located messages.
func validate(name string, f *File) diag.List {
	if name == "project" && len(f.Data) >= parallelSchemaMin && validInParts(name, f.Doc.Value) {
		return nil
	}
	return schema.Validate(name, f.Doc)
}

// validInParts tells whether v is valid, checking its evaluation_runs in
// parts concurrently; false also when v cannot be split.
func validInParts(name string, v any) bool {
	top, ok := v.(map[string]any)
	if !ok {
		return false
	}
	runs, ok := top["evaluation_runs"].([]any)
	n := min(runtime.GOMAXPROCS(0), 8)
	if !ok || n < 2 || len(runs) < 2*n {
		return false
	}
	s, err := schema.Compile(name)
	if err != nil {
		return false
	}
	parts := make([]map[string]any, n)
	first := make(map[string]any, len(top))
	for k, x := range top {
		first[k] = x
	}
	parts[0] = first
	for i := 1; i < n; i++ {
		parts[i] = map[string]any{}
	}
	for i := range parts {
		parts[i]["evaluation_runs"] = runs[i*len(runs)/n : (i+1)*len(runs)/n]
	}
	valid := make([]bool, n)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			valid[i] = s.Validate(parts[i]) == nil
		}()
	}
	wg.Wait()
	for _, ok := range valid {
		if !ok {
			return false
		}
	}
	return true
}
