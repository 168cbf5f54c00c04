package project

import (
	"io"
	"path/filepath"
	"sync"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/schema"
)

// Checker validates a whole file of one type (schema and semantic checks)
// the way the command that reads it does, and returns located diagnostics.
// Domains own their file types, so the CLI registers one per type.
type Checker func(file string, data []byte) diag.List

var (
	checkersMu sync.Mutex
	checkers   = map[string]Checker{}
)

// RegisterChecker sets the check of a file type (by FileType.Name, e.g.
// "agentleak-config"); files of that type are then validated by it instead of
// by their schema alone.
func RegisterChecker(fileType string, c Checker) {
	checkersMu.Lock()
	defer checkersMu.Unlock()
	checkers[fileType] = c
}

func checkerFor(fileType string) Checker {
	checkersMu.Lock()
	defer checkersMu.Unlock()
	return checkers[fileType]
}

// ValidateResult is what `lf validate` found.
type ValidateResult struct {
	Files    int
	Entities int
	Diags    diag.List
	Err      error // a usage error: a path that names nothing
}

// Validate checks files, folders and globs (the whole project when paths is
// empty): every YAML file against the schema of its type, entity files also
// for references, functions and configs (methodologies come from the files
// and, when given, from stored).
func Validate(root string, paths []string, stdin io.Reader, stored map[string]*model.Methodology) ValidateResult {
	var res ValidateResult
	whole := len(paths) == 0
	if whole {
		paths = []string{root}
	}
	files, err := ExpandPaths(paths)
	if err != nil {
		res.Err = err
		return res
	}
	var exclude []string
	if whole {
		exclude = projectExcludes(root)
	}
	known := map[string]bool{}
	for _, n := range schema.Names() {
		known[n] = true
	}
	b := &Batch{checkOnly: true}
	for _, p := range files {
		if excluded(root, p, exclude) {
			continue
		}
		f, ds := ReadFile(root, p, stdin)
		res.Files++
		res.Diags = append(res.Diags, ds...)
		if f == nil || ds.HasErrors() {
			continue
		}
		if c := checkerFor(f.Type.Name); c != nil && f.Type != &EntityFileType {
			res.Diags = append(res.Diags, c(f.Rel, f.Data)...)
			continue
		}
		if f.Type.Schema != "" && known[f.Type.Schema] {
			ds = schema.Validate(f.Type.Schema, f.Doc)
			res.Diags = append(res.Diags, ds...)
		}
		if f.Type == &EntityFileType {
			res.Diags = append(res.Diags, b.extract(f, ds)...)
		}
	}
	res.Diags = append(res.Diags, b.Check(stored)...)
	res.Entities = len(b.Entities)
	res.Diags.Sort()
	return res
}

func projectExcludes(root string) []string {
	f, ds := ReadFile(root, filepath.Join(root, MarkerFile), nil)
	if f == nil || ds.HasErrors() {
		return nil
	}
	var cfg struct {
		Exclude []string `json:"exclude"`
	}
	if err := f.Doc.Decode("", &cfg); err != nil {
		return nil
	}
	return cfg.Exclude
}

func excluded(root, path string, globs []string) bool {
	rel := Rel(root, path)
	for _, g := range globs {
		if ok, _ := filepath.Match(g, rel); ok {
			return true
		}
		if ok, _ := filepath.Match(g, filepath.Base(rel)); ok {
			return true
		}
	}
	return false
}
