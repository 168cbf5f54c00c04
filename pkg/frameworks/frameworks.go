// Package frameworks declares the file kind of compliance frameworks
// (`frameworks: [...]`) and decides each requirement's status from the
// levels of the risk scorers that evidence it.
package frameworks

import (
	"fmt"
	"strconv"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// Framework is one compliance framework: its requirements, each decided by
// the risk scorers named as its evidence.
type Framework struct {
	Key          string        `json:"key"`
	Name         string        `json:"name"`
	Source       string        `json:"source,omitempty"`
	Description  string        `json:"description,omitempty"`
	Requirements []Requirement `json:"requirements"`
}

// Requirement is one requirement of a framework. It is met when every
// evidence scorer with data is at or below MetAt; SameAs names the same
// requirement in other frameworks ("framework/requirement"), whose
// evidence it shares.
type Requirement struct {
	Key         string     `json:"key"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Evidence    Evidence   `json:"evidence"`
	MetAt       risk.Level `json:"met_at"`
	SameAs      []string   `json:"same_as,omitempty"`
}

// Evidence names the risk scorers that decide a requirement: by key and by
// domain (every scorer of the domain).
type Evidence struct {
	RiskScorers []string `json:"risk_scorers,omitempty"`
	Domains     []string `json:"domains,omitempty"`
}

// File is the file kind of compliance frameworks.
var File = kind.Kind[Framework, struct{}]{
	Name:        "frameworks",
	Description: "a compliance frameworks file (use `lf overview compliance`)",
	Schema:      "frameworks",
	List:        "frameworks",
	NotMapping:  "expected a mapping with a frameworks list, e.g. frameworks: [{key: owasp-llm, name: ..., requirements: [...]}]",
	Missing:     "missing frameworks: expected frameworks: [{key: ..., name: ..., requirements: [...]}]",
	Check:       checkFramework,
	CheckAll:    checkKeys,
}

// checkFramework fails on a requirement key given twice in a framework.
func checkFramework(doc *yamlsrc.Doc, ptr string, f *Framework, _ struct{}) diag.List {
	var ds diag.List
	seen := map[string]bool{}
	for i, r := range f.Requirements {
		if seen[r.Key] {
			ds = append(ds, doc.Errorf(ptr+"/requirements/"+strconv.Itoa(i)+"/key", "requirement %q given twice in framework %q", r.Key, f.Key))
		}
		seen[r.Key] = true
	}
	return ds
}

// checkKeys fails on a framework key given twice in a file.
func checkKeys(doc *yamlsrc.Doc, ptrs []string, fs []Framework, _ struct{}) diag.List {
	var ds diag.List
	seen := map[string]bool{}
	for i, f := range fs {
		if seen[f.Key] {
			ds = append(ds, doc.Errorf(ptrs[i]+"/key", "framework %q given twice", f.Key))
		}
		seen[f.Key] = true
	}
	return ds
}

// Located is a framework with where it was read, so that problems found
// when it is evaluated (a scorer that does not exist) are located.
type Located struct {
	Framework
	Doc *yamlsrc.Doc
	Ptr string
}

// Set is the frameworks of a project, read from its files.
type Set []Located

// Add parses one frameworks file into the set; a framework key already in
// the set is an error located at the second.
func (s *Set) Add(file string, data []byte) diag.List {
	res := File.Parse(file, data, struct{}{})
	fs, ds := res.All()
	if ds.HasErrors() {
		return ds
	}
	for i, f := range fs {
		if prev := s.find(f.Key); prev != nil {
			ds = append(ds, res.Doc.Errorf(res.Pointers[i]+"/key", "framework %q is also declared in %s", f.Key, prev.Doc.File))
			continue
		}
		*s = append(*s, Located{Framework: f, Doc: res.Doc, Ptr: res.Pointers[i]})
	}
	return ds
}

func (s Set) find(key string) *Located {
	for i := range s {
		if s[i].Key == key {
			return &s[i]
		}
	}
	return nil
}

func (s Set) requirement(ref string) (*Requirement, bool) {
	for i := range s {
		for j := range s[i].Requirements {
			if s[i].Key+"/"+s[i].Requirements[j].Key == ref {
				return &s[i].Requirements[j], true
			}
		}
	}
	return nil, false
}

func reqPtr(l *Located, j int) string {
	return fmt.Sprintf("%s/requirements/%d", l.Ptr, j)
}
