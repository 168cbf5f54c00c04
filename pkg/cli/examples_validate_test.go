package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/project"
)

// TestExamplesAndDemoValidate validates every example project and the demo
// project, as `lf validate` does: every file through its kind.
func TestExamplesAndDemoValidate(t *testing.T) {
	dirs, _ := filepath.Glob("../../examples/*")
	dirs = append(dirs, "../../project")
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		if filepath.Base(d) == "outputs" {
			continue // sample outputs, not a project: pkg/output validates them
		}
		t.Run(filepath.Base(d), func(t *testing.T) {
			res := project.ValidateWith(d, nil, nil, nil, project.ValidateOptions{Kinds: fileKinds})
			for _, x := range res.Diags {
				t.Error(x.String())
			}
			if res.Files == 0 {
				t.Errorf("%s: no YAML files", d)
			}
		})
	}
}
