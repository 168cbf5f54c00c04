// Package frameworks decides each requirement of compliance frameworks
// (the entity kind `frameworks:`, model.Framework) from the levels of the
// risk scorers that evidence it, and writes the result in every format of
// `lf overview compliance`.
package frameworks

import (
	"fmt"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// The framework types are the entity kind's (pkg/model).
type (
	// Framework is one compliance framework.
	Framework = model.Framework
	// Requirement is one requirement of a framework.
	Requirement = model.Requirement
	// Evidence names the risk scorers that decide a requirement.
	Evidence = model.Evidence
)

// Located is a framework with where it was read, so that problems found
// when it is evaluated (a scorer that does not exist) are located. A
// stored framework has no Doc: its problems name it instead.
type Located struct {
	Framework
	Doc *yamlsrc.Doc
	Ptr string
}

// Set is the frameworks to evaluate: the stored ones and those of files.
type Set []Located

// Merge returns the stored frameworks with those of files: a framework of
// the files replaces the stored one of the same key (the files are what is
// being checked), the others are added; sorted by key within each part.
func Merge(stored []*model.Framework, files Set) Set {
	own := map[string]bool{}
	for _, l := range files {
		own[l.Key] = true
	}
	var out Set
	for _, f := range stored {
		if !own[f.Key] {
			out = append(out, Located{Framework: *f})
		}
	}
	return append(out, files...)
}

func (s Set) find(key string) *Located {
	for i := range s {
		if s[i].Key == key {
			return &s[i]
		}
	}
	return nil
}

// index maps "framework/requirement" to its requirement.
func (s Set) index() map[string]*Requirement {
	out := map[string]*Requirement{}
	for i := range s {
		for j := range s[i].Requirements {
			out[s[i].Key+"/"+s[i].Requirements[j].Key] = &s[i].Requirements[j]
		}
	}
	return out
}

// errorf locates a problem at rel (relative to the framework) in its file,
// or names the stored framework.
func (l *Located) errorf(rel, format string, args ...any) diag.Diagnostic {
	if l.Doc != nil {
		return l.Doc.Errorf(l.Ptr+rel, format, args...)
	}
	return diag.Diagnostic{Msg: fmt.Sprintf("stored framework %s, %s: %s", l.Key, rel, fmt.Sprintf(format, args...))}
}

// pos is the file and line of the requirement j, when read from a file.
func (l *Located) pos(j int) (string, int) {
	if l.Doc == nil {
		return "", 0
	}
	line, _ := l.Doc.Pos(fmt.Sprintf("%s/requirements/%d", l.Ptr, j))
	return l.Doc.File, line
}

// frameworks returns the frameworks of the set, for project.FrameworkRefs.
func (s Set) frameworks() []*model.Framework {
	out := make([]*model.Framework, len(s))
	for i := range s {
		out[i] = &s[i].Framework
	}
	return out
}

// FromEntities returns the frameworks among entities read from files,
// located there.
func FromEntities(es []*project.Entity) Set {
	var out Set
	for _, e := range es {
		if e.Kind == model.KindFramework && e.Framework != nil {
			out = append(out, Located{Framework: *e.Framework, Doc: e.File.Doc, Ptr: e.Pointer})
		}
	}
	return out
}
