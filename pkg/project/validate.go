package project

import (
	"io"
	"path/filepath"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/schema"
)

// ValidateResult is what `lf validate` found.
type ValidateResult struct {
	Files    int
	Entities int
	Diags    diag.List
	Err      error // a usage error: a path that names nothing
}

// Validate checks files, folders and globs (the whole project when paths is
// empty) as entity files: against the project schema, for references,
// functions and configs (methodologies come from the files and, when given,
// from stored). ValidateWith checks the files of other kinds too.
func Validate(root string, paths []string, stdin io.Reader, stored map[string]*model.Methodology) ValidateResult {
	return ValidateWith(root, paths, stdin, stored, ValidateOptions{})
}

// ValidateOptions are what the command adds to Validate.
type ValidateOptions struct {
	// Kinds are the file kinds beyond entity files (the CLI passes its
	// list, pkg/cli/filetypes.go): a file of one of them is classified
	// and checked by its kind's pipeline.
	Kinds []kind.File
	// OnFile, when not nil, is called after each file is read, with its
	// path: the command shows progress with it.
	OnFile func(path string)
}

// ValidateWith is Validate with the options.
func ValidateWith(root string, paths []string, stdin io.Reader, stored map[string]*model.Methodology, opts ValidateOptions) ValidateResult {
	onFile := opts.OnFile
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
	var sel Settings
	if whole {
		sel = projectSelection(root)
	}
	known := map[string]bool{}
	for _, n := range schema.Names() {
		known[n] = true
	}
	b := &Batch{checkOnly: true}
	for _, p := range files {
		if whole && (matches(root, p, sel.Exclude) || (sel.Include != nil && !matches(root, p, sel.Include))) {
			continue
		}
		f, ds := readFile(root, p, stdin, opts.Kinds, &readOptions{checkOnly: true})
		if onFile != nil {
			onFile(p)
		}
		if whole && sel.Include == nil && f != nil && !ds.HasErrors() && !Recognised(f) {
			res.Diags = append(res.Diags, diag.Diagnostic{
				File: f.Rel, Line: 1, Col: 1, Severity: diag.SevWarning,
				Msg: "skipped: not an lf file (none of its top-level keys is lf's); list lf's files in lf.yaml's include:, or this one in exclude:",
			})
			continue
		}
		res.Files++
		if f == nil || f.Type == nil {
			res.Diags = append(res.Diags, ds...)
			continue
		}
		if f.Type != &EntityFile && f.Type.Check != nil {
			res.Diags = append(res.Diags, f.Type.Check(f.Rel, f.Data)...)
			continue
		}
		if f.Type.Schema != "" && known[f.Type.Schema] {
			ds = schemaCheck(f.Type.Schema, f, ds)
		}
		res.Diags = append(res.Diags, ds...)
		if f.Type == &EntityFile {
			res.Diags = append(res.Diags, b.extract(f, ds)...)
		}
	}
	res.Diags = append(res.Diags, b.Check(stored)...)
	res.Entities = len(b.Entities)
	res.Diags.Sort()
	return res
}

// projectSelection reads what lf.yaml says validating the whole project
// covers. The include and exclude lists are taken even from an lf.yaml with
// other problems (validating it reports them); one that cannot be read
// covers all.
func projectSelection(root string) Settings {
	var sel Settings
	f, ds := ReadFile(root, filepath.Join(root, MarkerFile), nil, nil)
	if f == nil || ds.HasErrors() {
		return sel
	}
	if err := f.Doc.Decode("", &sel); err != nil {
		return Settings{}
	}
	return sel
}

// matches tells whether path, relative to root or by its name, matches one
// of globs.
func matches(root, path string, globs []string) bool {
	rel := diag.Rel(root, path)
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
