// Package schema is lf's one validator: it compiles the embedded JSON Schemas
// once and turns validation errors into located diagnostics.
package schema

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/yamlsrc"
	"github.com/lfcli/lf/schemas"
)

const base = "lf:///schemas/"

var (
	mu       sync.Mutex
	compiled = map[string]*jsonschema.Schema{}
)

// Compile returns the compiled schema schemas/<name>.schema.json.
func Compile(name string) (*jsonschema.Schema, error) {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := compiled[name]; ok {
		return s, nil
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.ExtractAnnotations = true // for the default: values ApplyDefaults fills in
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		if !strings.HasPrefix(u, base) {
			return nil, fmt.Errorf("schema %s: only embedded schemas are loaded", u)
		}
		b, err := schemas.FS.ReadFile(strings.TrimPrefix(u, base))
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	s, err := c.Compile(base + name + ".schema.json")
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	compiled[name] = s
	return s, nil
}

// Validate validates doc against schemas/<name>.schema.json and returns one
// located diagnostic per problem.
func Validate(name string, doc *yamlsrc.Doc) diag.List {
	return ValidateAt(name, doc, "")
}

// ValidateAt validates the value at pointer in doc (a document nested in
// another, such as a decision case's risk config) against
// schemas/<name>.schema.json; the diagnostics are located in doc.
func ValidateAt(name string, doc *yamlsrc.Doc, pointer string) diag.List {
	s, err := Compile(name)
	if err != nil {
		return diag.List{{File: doc.File, Msg: "internal: " + err.Error()}}
	}
	v, ok := doc.Get(pointer)
	if !ok {
		return diag.List{doc.Errorf(pointer, "missing")}
	}
	if v == nil && pointer == "" {
		// An empty file (or one of comments only) says so, whatever reads it.
		return diag.List{{File: doc.File, Msg: fmt.Sprintf("the file is empty: it holds no YAML value, and a %s file is a mapping (lf schema %s shows its fields)", name, name)}}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return diag.List{{File: doc.File, Msg: err.Error()}}
	}
	var out diag.List
	seen := map[string]bool{}
	for _, p := range leaves(ve) {
		p.ptr = pointer + unescapeLocation(p.ptr)
		for _, d := range toDiags(doc, p) {
			k := d.Pointer + "\x00" + d.Msg
			if !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	out.Sort()
	return out
}

// problem is one leaf validation error.
type problem struct {
	ptr, keyword, msg string
}

var quoted = regexp.MustCompile(`'([^']*)'`)

// leaves flattens the error tree. For oneOf/anyOf it keeps the branches that
// got past the type check, so a wrong field inside an object scope is reported
// rather than "does not match string".
func leaves(ve *jsonschema.ValidationError) []problem {
	kw := ve.KeywordLocation[strings.LastIndexByte(ve.KeywordLocation, '/')+1:]
	if len(ve.Causes) == 0 {
		return []problem{{ve.InstanceLocation, kw, ve.Message}}
	}
	if kw == "oneOf" || kw == "anyOf" {
		var deep []problem
		var types []string
		for _, c := range ve.Causes {
			ls := leaves(c)
			if len(ls) == 1 && ls[0].keyword == "type" && ls[0].ptr == ve.InstanceLocation {
				t := strings.TrimPrefix(ls[0].msg, "expected ")
				if i := strings.Index(t, ", but got"); i >= 0 {
					t = t[:i]
				}
				types = append(types, t)
				continue
			}
			if len(ls) == 1 && ls[0].keyword == "const" && ls[0].ptr == ve.InstanceLocation {
				types = append(types, strings.TrimPrefix(ls[0].msg, "value must be "))
				continue
			}
			deep = append(deep, ls...)
		}
		if len(deep) > 0 {
			return deep
		}
		return []problem{{ve.InstanceLocation, "type", "must be " + strings.Join(types, " or ")}}
	}
	var out []problem
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func toDiags(doc *yamlsrc.Doc, p problem) diag.List {
	switch p.keyword {
	case "additionalProperties", "unevaluatedProperties":
		var out diag.List
		for _, m := range quoted.FindAllStringSubmatch(p.msg, -1) {
			ptr := p.ptr + "/" + yamlsrc.EscapePointer(m[1])
			d := doc.Errorf(ptr, "unknown field %q", m[1])
			if l, c := doc.KeyPos(ptr); l > 0 {
				d.Line, d.Col = l, c
			}
			out = append(out, d)
		}
		if len(out) > 0 {
			return out
		}
	case "required":
		var names []string
		for _, m := range quoted.FindAllStringSubmatch(p.msg, -1) {
			names = append(names, fmt.Sprintf("%q", m[1]))
		}
		if len(names) > 0 {
			return diag.List{doc.Errorf(p.ptr, "missing required field %s", strings.Join(names, ", "))}
		}
	case "type":
		return diag.List{doc.Errorf(p.ptr, "%s", strings.Replace(p.msg, "expected ", "must be ", 1))}
	case "pattern":
		if strings.Contains(p.msg, `^[a-zA-Z0-9_\\-]+$`) {
			v, _ := doc.Get(p.ptr)
			s, ok := v.(string)
			if !ok {
				// a key of a mapping (propertyNames): the pointer's last segment
				s = unescapeSegment(p.ptr[strings.LastIndexByte(p.ptr, '/')+1:])
			}
			return diag.List{doc.Errorf(p.ptr, "%q is not a valid key: use only letters, digits, '_' and '-'", s)}
		}
		return diag.List{doc.Errorf(p.ptr, "%s", p.msg)}
	}
	return diag.List{doc.Errorf(p.ptr, "%s", p.msg)}
}

// Names lists the embedded schema names (without .schema.json).
func Names() []string {
	entries, _ := schemas.FS.ReadDir(".")
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".schema.json"); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// unescapeLocation undoes the percent-encoding the validator applies to
// instance locations, so that pointers are plain RFC 6901 ("/metrics/a b",
// not "/metrics/a%20b").
func unescapeLocation(ptr string) string {
	if !strings.Contains(ptr, "%") {
		return ptr
	}
	if u, err := url.PathUnescape(ptr); err == nil {
		return u
	}
	return ptr
}

// unescapeSegment reads one RFC 6901 pointer segment.
func unescapeSegment(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}
