package kind

import (
	"fmt"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// Kind declares one file kind, once: the schema it is validated against
// (with the defaults that schema gives), the Go type T its values decode
// into and the semantic check a schema cannot state. C is what the check
// needs from its caller (an allow-list, an environment); kinds that need
// nothing use struct{}.
//
// Parse is the one pipeline every kind goes through, whoever reads the file
// (`lf validate`, the command that uses it, the server): bytes, located
// values (pkg/yamlsrc), empty check, schema (pkg/schema) together with Lint,
// defaults from the schema, decode, Check and CheckAll. Entries with schema
// errors are skipped by one rule (Skip), so that the other entries are still
// checked and one run reports every problem of a file.
//
// A kind read from files is also told apart by its value: a file named
// FileName, or a file with one of its top-level Keys (or List); the list of
// file kinds every project command uses (pkg/cli/filetypes.go) is made of
// these values, so a kind is declared in this one place.
type Kind[T, C any] struct {
	Name   string // e.g. "alert-rules", as `lf validate` and messages name it
	Schema string // schemas/<Schema>.schema.json; "" for none

	// Description says what a file of the kind is, for messages about a
	// file given where another kind is expected: "a run file (use `lf run
	// -f`)". Keys are the top-level keys that tell a file of the kind apart
	// (any one of them; a kind with List is told apart by List without
	// them); FileName, the file name that does (lf.yaml). A kind with
	// neither is read only where it is expected (a request body).
	Description string
	Keys        []string
	FileName    string

	// List, when set, is the member of the top-level mapping that holds the
	// kind's entries (e.g. "alert_rules"), each a T; NotMapping and Missing
	// are the messages when the top level is not a mapping or lacks List.
	// Without List, the document is one T.
	List, NotMapping, Missing string

	// Empty is the message for an empty document of a kind without List.
	// Without it, an empty document is null to the schema, or {} (every
	// field at its default) with EmptyOK.
	Empty   string
	EmptyOK bool

	// FileList, for a kind without List, is the member that marks a file of
	// the corresponding list kind instead (a project file sent where one
	// value is expected); One names the value in the message "expected one
	// <One>, not a <FileList> list".
	FileList, One string

	// What names a value in decode errors ("cannot decode <What>: ..."); ""
	// gives the decoder's message alone.
	What string

	// Decode, when set, decodes the value at ptr of doc instead of a JSON
	// round trip of its values, locating its own problems (evaluation runs:
	// a hand decoder for files of hundreds of thousands of values).
	// Optional.
	Decode func(doc *yamlsrc.Doc, ptr string) (T, diag.List)

	// Lint runs with the schema on the located values: problems a schema
	// cannot state that need no decoding (unknown-key warnings, regular
	// expressions). Optional.
	Lint func(doc *yamlsrc.Doc, ptr string) diag.List

	// Check runs the semantic checks on one decoded value at ptr, locating
	// its problems in doc. Optional.
	Check func(doc *yamlsrc.Doc, ptr string, v *T, c C) diag.List

	// CheckAll runs the checks across a file's entries (an id given twice);
	// ptrs[i] is the pointer of vs[i]. Optional.
	CheckAll func(doc *yamlsrc.Doc, ptrs []string, vs []T, c C) diag.List
}

// Result is what Parse found: the document, the values that got past the
// schema (with their pointers) and every problem, sorted.
type Result[T any] struct {
	Doc      *yamlsrc.Doc
	Values   []T
	Pointers []string
	Diags    diag.List
}

// One returns the value of a kind without List, and the problems; the value
// is the zero T when there are errors.
func (r Result[T]) One() (T, diag.List) {
	var zero T
	if r.Diags.HasErrors() || len(r.Values) == 0 {
		return zero, r.Diags
	}
	return r.Values[0], r.Diags
}

// All returns the values, or nil when there are errors, and the problems.
func (r Result[T]) All() ([]T, diag.List) {
	if r.Diags.HasErrors() {
		return nil, r.Diags
	}
	return r.Values, r.Diags
}

// Parse reads data (named file in messages) through the pipeline.
func (k *Kind[T, C]) Parse(file string, data []byte, c C) Result[T] {
	doc, ds := yamlsrc.Parse(file, data)
	if ds.HasErrors() {
		return Result[T]{Doc: doc, Diags: ds}
	}
	return k.ParseDoc(doc, ds, c)
}

// ParseDoc runs the pipeline from the located values on: doc as parsed,
// parsed its parse warnings.
func (k *Kind[T, C]) ParseDoc(doc *yamlsrc.Doc, parsed diag.List, c C) Result[T] {
	return k.parse(doc, parsed, "", c)
}

// ParseAt runs the pipeline of a kind without List on the value at ptr in
// doc: a value of this kind nested in a file of another (a decision case's
// risk config). Its problems are located in doc.
func (k *Kind[T, C]) ParseAt(doc *yamlsrc.Doc, ptr string, c C) Result[T] {
	return k.parse(doc, nil, ptr, c)
}

func (k *Kind[T, C]) parse(doc *yamlsrc.Doc, parsed diag.List, base string, c C) Result[T] {
	res := Result[T]{Doc: doc, Diags: parsed}
	fail := func(d diag.Diagnostic) Result[T] {
		res.Diags = append(res.Diags, d)
		return res
	}
	var ptrs []string
	value, _ := doc.Get(base)
	if k.List == "" || base != "" {
		if value == nil {
			switch {
			case k.Empty != "" && base != "":
				return fail(doc.Errorf(base, "%s", k.Empty))
			case k.Empty != "":
				return fail(diag.Diagnostic{File: doc.File, Line: 1, Col: 1, Msg: k.Empty})
			case k.EmptyOK && base == "":
				doc.Value = map[string]any{}
			}
		}
		ptrs = []string{base}
	} else {
		m, ok := doc.Value.(map[string]any)
		if !ok && doc.Value == nil {
			return fail(diag.Diagnostic{File: doc.File, Msg: "the file is empty: " + k.NotMapping})
		}
		if !ok {
			return fail(diag.Diagnostic{File: doc.File, Line: 1, Col: 1, Msg: k.NotMapping})
		}
		if _, ok := m[k.List]; !ok {
			return fail(doc.Errorf("", "%s", k.Missing))
		}
		list, _ := m[k.List].([]any)
		for i := range list {
			ptrs = append(ptrs, fmt.Sprintf("/%s/%d", yamlsrc.EscapePointer(k.List), i))
		}
	}
	if k.Schema != "" {
		res.Diags = append(res.Diags, schema.ValidateAt(k.Schema, doc, base)...)
	}
	if k.FileList != "" {
		if m, ok := value.(map[string]any); ok {
			if _, isFile := m[k.FileList]; isFile {
				res.Diags = append(res.Diags, doc.Errorf(base+"/"+yamlsrc.EscapePointer(k.FileList), "expected one %s, not a %s list", k.One, k.FileList))
			}
		}
	}
	if k.Lint != nil {
		res.Diags = append(res.Diags, k.Lint(doc, base)...)
	}
	if k.Schema != "" {
		value, _ = doc.Get(base)
		if err := schema.ApplyDefaults(k.Schema, value); err != nil {
			return fail(diag.Diagnostic{File: doc.File, Msg: "internal: " + err.Error()})
		}
	}
	checked := res.Diags
	for _, p := range ptrs {
		if Skip(checked, p) {
			continue
		}
		v, ds, ok := k.Entry(doc, p, c)
		res.Diags = append(res.Diags, ds...)
		if ok {
			res.Values = append(res.Values, v)
			res.Pointers = append(res.Pointers, p)
		}
	}
	if k.CheckAll != nil && len(res.Values) > 0 {
		res.Diags = append(res.Diags, k.CheckAll(doc, res.Pointers, res.Values, c)...)
	}
	res.Diags.Sort()
	return res
}

// Entry is the pipeline's last steps on one entry, at ptr of doc: decode
// (Decode, else a JSON round trip of its values) and Check. ok is false
// when it cannot be decoded. Parse runs it on every entry the schema step
// let through (Skip); the entity files' batch loader (pkg/project), which
// reads a batch of files with a schema step of its own, runs it on theirs.
func (k *Kind[T, C]) Entry(doc *yamlsrc.Doc, ptr string, c C) (v T, ds diag.List, ok bool) {
	if k.Decode != nil {
		if v, ds = k.Decode(doc, ptr); ds.HasErrors() {
			return v, ds, false
		}
	} else if err := doc.Decode(ptr, &v); err != nil {
		if k.What != "" {
			return v, diag.List{doc.Errorf(ptr, "cannot decode %s: %v", k.What, err)}, false
		}
		return v, diag.List{doc.Errorf(ptr, "%v", err)}, false
	}
	if k.Check != nil {
		ds = append(ds, k.Check(doc, ptr, &v, c)...)
	}
	return v, ds, true
}

// Skip is the one rule for entries with schema problems: the entry at ptr
// is not decoded or checked further when an error lies at it, inside it, or
// at one of its ancestors (the file as a whole, the list that holds it), as
// its decoded value would be a guess. Warnings do not count.
func Skip(ds diag.List, ptr string) bool {
	for _, d := range ds {
		if d.Severity != diag.SevError {
			continue
		}
		if d.Pointer == ptr || strings.HasPrefix(d.Pointer, ptr+"/") || d.Pointer == "" || strings.HasPrefix(ptr, d.Pointer+"/") {
			return true
		}
	}
	return false
}

// File is a file kind as the project commands see it, whatever its Go
// type: what tells its files apart (Kind's FileName, Keys, List), what it
// is called in messages, and the whole pipeline with the check's context
// fixed, as `lf validate` runs it.
type File struct {
	Name        string
	Description string
	Schema      string
	Keys        []string // the top-level keys that tell its files apart
	FileName    string   // the file name that does
	Check       func(file string, data []byte) diag.List
}

// File returns k as the project commands see it, with c for its check.
func (k *Kind[T, C]) File(c C) File {
	keys := k.Keys
	if len(keys) == 0 && k.List != "" {
		keys = []string{k.List}
	}
	return File{
		Name: k.Name, Description: k.Description, Schema: k.Schema, Keys: keys, FileName: k.FileName,
		Check: func(file string, data []byte) diag.List { return k.Parse(file, data, c).Diags },
	}
}

// Classify returns the kind among kinds that a file named name (its base
// name) with top-level mapping top belongs to: the kind whose FileName is
// name, else the first whose keys top holds; nil for none.
func Classify(kinds []File, name string, top map[string]any) *File {
	for i := range kinds {
		if kinds[i].FileName != "" && kinds[i].FileName == name {
			return &kinds[i]
		}
	}
	for i := range kinds {
		for _, k := range kinds[i].Keys {
			if _, ok := top[k]; ok {
				return &kinds[i]
			}
		}
	}
	return nil
}
