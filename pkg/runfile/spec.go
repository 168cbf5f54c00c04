package runfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// Spec is a parsed run file.
type Spec struct {
	Path        string          // as given
	Rel         string          // for messages
	BaseDir     string          // absolute folder of the run file
	Apply       []string        // entity paths, resolved against BaseDir
	Evaluations []EvaluationRef // in the order written
	FailOn      string
	Domain      string
	AllowNoData bool // overview.allow_no_data: no_data does not trip fail_on
	// Compliance is the compliance: step (nil without one).
	Compliance *ComplianceStep
}

// ComplianceStep decides the stored frameworks' requirements after the
// overview: Framework only (when not ""), with the gate FailOn (gap or
// partial, "" for none).
type ComplianceStep struct {
	Framework   string `json:"framework"`
	FailOn      string `json:"fail_on"`
	AllowNoData bool   `json:"allow_no_data"`
}

// EvaluationRef is one entry of a run file's evaluations list.
type EvaluationRef struct {
	Name    string
	Pointer string
	Spec    json.RawMessage
}

// Load reads and validates a run file; rel names it in messages.
func Load(path, rel string) (*Spec, diag.List) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.List{{File: rel, Msg: fmt.Sprintf("cannot read run file: %v", err)}}
	}
	return Parse(path, rel, data)
}

// Parse validates the run file data read from path; rel names it in
// messages, and relative apply: paths start from path's folder.
func Parse(path, rel string, data []byte) (*Spec, diag.List) {
	raw, diags := File.Parse(rel, data, struct{}{}).One()
	if diags.HasErrors() {
		return nil, diags
	}
	abs, _ := filepath.Abs(path)
	s := &Spec{Path: path, Rel: rel, BaseDir: filepath.Dir(abs), FailOn: raw.Overview.FailOn, Domain: raw.Overview.Domain, AllowNoData: raw.Overview.AllowNoData, Compliance: raw.Compliance}
	for _, a := range raw.Apply {
		if !filepath.IsAbs(a) {
			a = filepath.Join(s.BaseDir, a)
		}
		s.Apply = append(s.Apply, a)
	}
	for i, ev := range raw.Evaluations {
		for _, n := range sortedNames(ev) {
			ptr := fmt.Sprintf("/evaluations/%d/%s", i, n)
			s.Evaluations = append(s.Evaluations, EvaluationRef{Name: n, Pointer: ptr, Spec: ev[n]})
		}
	}
	return s, diags
}

// raw is a run file as decoded.
type raw struct {
	Apply       []string                     `json:"apply"`
	Evaluations []map[string]json.RawMessage `json:"evaluations"`
	Overview    struct {
		FailOn      string `json:"fail_on"`
		Domain      string `json:"domain"`
		AllowNoData bool   `json:"allow_no_data"`
	} `json:"overview"`
	Compliance *ComplianceStep `json:"compliance"`
}

// File is the file kind of run files (`lf run -f`); its check is that
// every evaluation it names is one this lf knows.
var File = kind.Kind[raw, struct{}]{
	Name:        "run",
	Description: "a run file (use `lf run -f`)",
	Keys:        []string{"apply", "evaluations"},
	Schema:      "run",
	Check: func(doc *yamlsrc.Doc, _ string, r *raw, _ struct{}) diag.List {
		var out diag.List
		for i, ev := range r.Evaluations {
			for _, n := range sortedNames(ev) {
				if _, ok := Lookup(n); !ok {
					out = append(out, doc.Errorf(fmt.Sprintf("/evaluations/%d/%s", i, n), "unknown evaluation %q: this lf knows %v", n, Names()))
				}
			}
		}
		return out
	},
}

func sortedNames(ev map[string]json.RawMessage) []string {
	names := make([]string, 0, len(ev))
	for n := range ev {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
