package project

import (
	"path/filepath"

	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// EntityFile is the kind of files that hold entities (methodologies, risk
// scorers, evaluation runs), told apart by their schema's sections. Their
// files are read as a batch by this package (LoadEntities, Validate), not
// one by one by kind.Kind.Parse.
var EntityFile = kind.File{Name: "entities", Description: "an entity file", Schema: "project"}

// Classify tells a file's kind from its name and top-level keys: among
// kinds (the file kinds beyond entity files, pkg/cli/filetypes.go) the one
// named like the file (lf.yaml), else EntityFile when the file holds an
// entity section, else the first of kinds whose keys it holds. Anything
// unrecognised is taken for an entity file, so its schema errors name the
// unknown keys.
func Classify(path string, doc *yamlsrc.Doc, kinds []kind.File) *kind.File {
	if k := kind.Classify(kinds, filepath.Base(path), nil); k != nil {
		return k
	}
	top, ok := doc.Value.(map[string]any)
	if !ok {
		return &EntityFile
	}
	for _, k := range orders().section {
		if _, ok := top[k]; ok {
			return &EntityFile
		}
	}
	if k := kind.Classify(kinds, "", top); k != nil {
		return k
	}
	return &EntityFile
}

// Recognised tells whether a classified file is one of lf's: a file of
// one of the kinds, or a file with an entity section.
func Recognised(f *File) bool {
	if f.Type != &EntityFile {
		return true
	}
	top, ok := f.Doc.Value.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range orders().section {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}
