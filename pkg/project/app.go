package project

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
)

// App returns the app key of the project at root, which scopes every
// entity, run and score it keeps in a store (many AI apps share one store):
// lf.yaml's `app:`, else the name of the project's folder. A bad `app:`
// value is a located ExitInvalid error; a folder name that breaks the id
// rule (schemas/ids.schema.json) asks for an `app:`.
func App(root string) (string, error) {
	marker := filepath.Join(root, MarkerFile)
	if _, err := os.Stat(marker); err == nil {
		f, ds := ReadFile(root, marker, nil, nil)
		if f == nil || (f.Doc.Value == nil && ds.HasErrors()) {
			// Without a readable lf.yaml the app is unknown: guessing could
			// write into another app's data.
			return "", diag.Invalid(ds.Errors())
		}
		if bad := appProblems(f); len(bad) > 0 {
			return "", diag.Invalid(bad)
		}
		var cfg struct {
			App *string `json:"app"`
		}
		if err := f.Doc.Decode("", &cfg); err == nil && cfg.App != nil {
			return *cfg.App, nil
		}
	}
	name := filepath.Base(root)
	if err := CheckApp(name); err != nil {
		return "", diag.Usagef("the project folder's name cannot be its app key (%v); set app: in %s, or pass --app", err, MarkerFile)
	}
	return name, nil
}

// appProblems are the complaints of lf.yaml's kind (Marker) about its app:
// key.
func appProblems(f *File) diag.List {
	var out diag.List
	for _, d := range Marker.ParseDoc(f.Doc, nil, struct{}{}).Diags {
		if d.Pointer == "/app" {
			out = append(out, d)
		}
	}
	return out
}

// CheckApp applies the id rule to an app key (from --app or LF_APP).
func CheckApp(app string) error {
	if err := kind.CheckID("app", app); err != nil {
		return fmt.Errorf("%w (the id rule of schemas/ids.schema.json)", err)
	}
	return nil
}
