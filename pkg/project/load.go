package project

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// File is one loaded YAML file.
type File struct {
	Path string // as opened ("-" for stdin)
	Rel  string // for messages: relative to the project root when inside it
	Data []byte
	Doc  *yamlsrc.Doc
	Type *kind.File // its kind (EntityFile for entity files)

	runs []*Entity // its runs when read one at a time (runstream.go)
}

// Entity is one methodology, risk scorer or evaluation run read from a file.
type Entity struct {
	Kind    model.Kind
	Key     string // for runs: evaluation_key/id
	File    *File
	Pointer string // of the entity in its file
	Value   map[string]any
	YAML    string // canonical list item ("- key: ...") with its comments; see yaml()

	AIApp       *model.AIApp
	Methodology *model.Methodology
	Scorer      *model.RiskScorer
	Run         *model.EvaluationRun
	Framework   *model.Framework

	packed *packedRun // a run read one at a time (runstream.go), instead of Run
}

// Errorf makes a diagnostic at rel, a pointer relative to the entity.
func (e *Entity) Errorf(rel, format string, args ...any) diag.Diagnostic {
	return e.File.Doc.Errorf(e.Pointer+rel, format, args...)
}

// Batch is a set of loaded files and the entities in them.
type Batch struct {
	Files    []*File
	Entities []*Entity

	skipped map[string]bool // kind and key of entities left out for schema problems
	left    []*Entity       // entities of another kind than `lf add KIND` writes (Only)
	invalid []invalidEntity // those entities, decoded as far as they go, for Check (invalid.go)

	// checkOnly is set by Validate: nothing will be written, so runs are
	// checked as they are read and then dropped, and no YAML is rendered.
	checkOnly bool
}

// ExpandPaths turns files, folders (searched for *.yaml and *.yml, skipping
// hidden folders) and globs into a sorted, de-duplicated list of files. "-"
// stays as is and means standard input. An argument that yields no file (a
// missing path, a dangling symlink, a symlink cycle, an empty folder, a glob
// matching nothing) is a usage error that says nothing was found.
func ExpandPaths(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, a := range args {
		if a == "-" {
			add(a)
			continue
		}
		found, why, err := expandOne(a)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, diag.Usagef("%s: nothing found: %s", a, why)
		}
		for _, f := range found {
			add(f)
		}
	}
	return out, nil
}

// expandOne lists the files one argument names, or says why there are none.
func expandOne(a string) (files []string, why string, err error) {
	st, serr := os.Stat(a)
	if serr != nil {
		if _, lerr := os.Lstat(a); lerr == nil {
			return nil, fmt.Sprintf("a symlink that leads nowhere (%v)", errors.Unwrap(serr)), nil
		}
		matches, gerr := filepath.Glob(a)
		if gerr != nil || len(matches) == 0 {
			return nil, "no such file, folder or matching glob", nil
		}
		sort.Strings(matches)
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && !st.IsDir() {
				files = append(files, m)
			}
		}
		return files, "the glob matches no readable file", nil
	}
	if !st.IsDir() {
		return []string{a}, "", nil
	}
	err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != a && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	sort.Strings(files)
	return files, "the folder holds no .yaml or .yml file", nil
}

// ReadFile reads and parses one file (or stdin for "-"), naming it relative
// to root in messages, and classifies it among kinds (Classify).
func ReadFile(root, path string, stdin io.Reader, kinds []kind.File) (*File, diag.List) {
	return readFile(root, path, stdin, kinds, nil)
}

// readOptions say how readFile reads a large entity file's runs: one at a
// time (runstream.go), for a batch that is checked only when checkOnly.
type readOptions struct {
	checkOnly bool
}

// readFile is ReadFile, reading runs one at a time when opts is not nil.
func readFile(root, path string, stdin io.Reader, kinds []kind.File, opts *readOptions) (*File, diag.List) {
	var data []byte
	var err error
	rel := path
	if path == "-" {
		rel = "<stdin>"
		data, err = io.ReadAll(stdin)
	} else {
		rel = diag.Rel(root, path)
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, diag.List{{File: rel, Msg: fmt.Sprintf("cannot read: %v", err)}}
	}
	f := &File{Path: path, Rel: rel, Data: data}
	var diags diag.List
	if opts != nil && len(data) >= streamMin {
		limitMemory(len(data), true)
		f.Doc, diags = parseStreamed(f, opts.checkOnly)
	} else {
		limitMemory(len(data), false)
		f.Doc, diags = yamlsrc.Parse(rel, data)
	}
	if diags.HasErrors() && f.Doc.Value == nil {
		return f, diags
	}
	// Problems in values (a NaN, a duplicate key) leave the rest of the
	// file readable: it is classified and checked further, so that every
	// independent problem is reported in one pass.
	f.Type = Classify(path, f.Doc, kinds)
	if f.Type != &EntityFile {
		f.unstream()
	}
	return f, diags
}

// parseWhole reads f as yamlsrc.Parse does, its tree whole.
func parseWhole(f *File) (*yamlsrc.Doc, diag.List) {
	limitMemory(len(f.Data), false)
	return yamlsrc.Parse(f.Rel, f.Data)
}

// parseEach reads f handing each of its runs to take as it is read
// (runstream.go).
func parseEach(f *File, take func(i int, run any) any) (*yamlsrc.Doc, diag.List, bool) {
	return yamlsrc.ParseEach(f.Rel, f.Data, runsSection, take)
}

// schemaCheck validates f against schema and adds the problems to parsed
// (the file's parse problems), leaving out those at a pointer a parse
// problem already names: a NaN read as nothing is not also "expected number".
func schemaCheck(name string, f *File, parsed diag.List) diag.List {
	if f.runs != nil {
		if name == "project" && !parsed.HasErrors() && restValid(name, f) {
			return parsed // and each run was valid
		}
		f.unstream()
	}
	at := map[string]bool{}
	for _, d := range parsed {
		at[d.Pointer] = true
	}
	out := parsed
	for _, d := range validate(name, f) {
		if !at[d.Pointer] {
			out = append(out, d)
		}
	}
	return out
}

// memoryLimit is the soft limit limitMemory set, 0 before; readBytes is
// the size of the files read so far, whose entities a batch holds.
var memoryLimit, readBytes int64

// limitMemory keeps reading large files within about ten times their size.
// A file whose runs are read one at a time (streamed) leaves about three
// times its size (its text, the runs packed, their YAML): the limit is
// seven times the files read so far, below which the collector would
// otherwise let garbage double that. A file read whole holds its tree of
// values, five to seven times its size: ten times its size plus 16 MiB
// under 32 MB (a limit under the tree's size only makes the collector run
// without end), nine times from 32 MB. The limit is soft (the collector
// works harder near it, nothing fails) and only ever raised; it is left
// alone when GOMEMLIMIT is set or the files are under 8 MB, where the
// process's own 20-30 MB dominate. Call it with the file's size before
// reading it, and again with streamed false when it is read whole after all.
func limitMemory(size int, streamed bool) {
	if streamed {
		readBytes += int64(size)
	}
	want := 7 * readBytes
	if !streamed {
		whole := int64(9 * size)
		if size < 32<<20 {
			whole = int64(10*size) + 16<<20
		}
		want = max(want, whole)
	}
	if readBytes < 8<<20 && size < 8<<20 || os.Getenv("GOMEMLIMIT") != "" || want <= memoryLimit {
		return
	}
	memoryLimit = want
	debug.SetMemoryLimit(want)
}

// LoadEntityFiles reads the entity files named by paths (files, folders,
// globs, "-"), validates each against the project schema and returns the
// entities with every problem found. Files of other kinds (one of kinds)
// found in a folder are skipped; named explicitly, they are an error.
func LoadEntityFiles(root string, paths []string, stdin io.Reader, kinds []kind.File) (*Batch, diag.List) {
	b, diags, err := LoadEntities(root, paths, stdin, kinds)
	if err != nil {
		return nil, diag.List{{Msg: err.Error()}}
	}
	return b, diags
}

// LoadEntities is LoadEntityFiles with paths that name nothing returned as
// a usage error apart from the problems in the files.
func LoadEntities(root string, paths []string, stdin io.Reader, kinds []kind.File) (*Batch, diag.List, error) {
	files, err := ExpandPaths(paths)
	if err != nil {
		return nil, nil, err
	}
	explicit := map[string]bool{}
	for _, p := range paths {
		explicit[p] = true
	}
	b := &Batch{}
	var diags diag.List
	for _, p := range files {
		f, parsed := readFile(root, p, stdin, kinds, &readOptions{})
		if f == nil || f.Type == nil {
			diags = append(diags, parsed...)
			continue
		}
		if f.Type != &EntityFile {
			diags = append(diags, parsed...)
			if explicit[p] || p == "-" {
				diags = append(diags, diag.Diagnostic{
					File: f.Rel, Line: 1, Col: 1,
					Msg: fmt.Sprintf("not an entity file (it looks like %s); entity files hold %s", f.Type.Description, strings.Join(orders().section, ", ")),
				})
			}
			continue
		}
		b.Files = append(b.Files, f)
		ds := schemaCheck("project", f, parsed)
		diags = append(diags, ds...)
		diags = append(diags, b.extract(f, ds)...)
	}
	return b, diags, nil
}

// extract turns the entities of a file that passed the schema into
// entities; those with schema problems (in invalid) are only remembered by
// key, so that references to them are not reported a second time.
func (b *Batch) extract(f *File, invalid diag.List) diag.List {
	var diags diag.List
	top, _ := f.Doc.Value.(map[string]any)
	for _, k := range Kinds {
		if k.Kind == model.KindEvaluationRun && f.runs != nil {
			diags = append(diags, b.extractStreamed(f)...)
			continue
		}
		items, _ := top[k.Section].([]any)
		for i, it := range items {
			ptr := fmt.Sprintf("/%s/%d", k.Section, i)
			m, _ := it.(map[string]any)
			if kind.Skip(invalid, ptr) {
				if key, ok := m["key"].(string); ok {
					if b.skipped == nil {
						b.skipped = map[string]bool{}
					}
					b.skipped[string(k.Kind)+"\x00"+key] = true
				}
				diags = append(diags, b.keepInvalid(f, k.Kind, ptr, m, invalid)...)
				continue
			}
			e := &Entity{Kind: k.Kind, File: f, Pointer: ptr, Value: m}
			if ds := e.decode(); ds != nil {
				diags = append(diags, ds...)
				continue
			}
			if b.checkOnly && k.Kind == model.KindEvaluationRun {
				diags = append(diags, runProblems(e)...)
				e.Run = nil
			}
			if !b.checkOnly {
				e.YAML = EntityYAML(k.Kind, m, f.Doc.Comments(ptr))
			}
			if k.Kind == model.KindEvaluationRun {
				// A run is kept as Run and YAML; its tree, the bulk of a
				// large file, goes now.
				e.Value, items[i] = nil, nil
			}
			b.Entities = append(b.Entities, e)
		}
	}
	// The entities hold what they need; the file's tree can go (positions
	// for messages stay available).
	f.Doc.Value = nil
	return diags
}

// decode decodes the entity through its kind's Entry and sets its key;
// its problems, or nil when it decodes.
func (e *Entity) decode() diag.List {
	doc, none := e.File.Doc, struct{}{}
	var ds diag.List
	var ok bool
	switch e.Kind {
	case model.KindAIApp:
		var v model.AIApp
		if v, ds, ok = AIApps.Entry(doc, e.Pointer, none); ok {
			e.AIApp, e.Key = &v, v.Key
		}
	case model.KindMethodology:
		var v model.Methodology
		if v, ds, ok = Methodologies.Entry(doc, e.Pointer, none); ok {
			e.Methodology, e.Key = &v, v.Key
		}
	case model.KindRiskScorer:
		var v model.RiskScorer
		if v, ds, ok = RiskScorers.Entry(doc, e.Pointer, none); ok {
			e.Scorer, e.Key = &v, v.Key
		}
	case model.KindEvaluationRun:
		var v model.EvaluationRun
		if v, ds, ok = EvaluationRuns.Entry(doc, e.Pointer, none); ok {
			e.Run, e.Key = &v, v.EvaluationKey+"/"+v.ID
		}
	case model.KindFramework:
		var v model.Framework
		if v, ds, ok = Frameworks.Entry(doc, e.Pointer, none); ok {
			e.Framework, e.Key = &v, v.Key
		}
	}
	if !ok || ds.HasErrors() { // a kind's Check may fail a decoded entry
		return ds
	}
	return nil
}

// EntityYAML renders an entity as a canonical YAML list item with the
// comments written on it (keyed relative to the entity).
func EntityYAML(kind model.Kind, value map[string]any, comments map[string]yamlsrc.Comment) string {
	shifted := make(map[string]yamlsrc.Comment, len(comments))
	for p, c := range comments {
		shifted["/0"+p] = c
	}
	out := yamlsrc.Encode([]any{value}, yamlsrc.EncodeStyle{
		Comments: shifted,
		Order: func(ptr string, keys []string) []string {
			return KeyOrder(kind, strings.TrimPrefix(ptr, "/0"), keys)
		},
	})
	return string(out)
}

// Check validates what the schema cannot: duplicate keys in the batch,
// functions and parameters of methodologies, scorer configs against their
// methodologies (from the batch, else from stored), and it returns every
// problem located in its file.
func (b *Batch) Check(stored map[string]*model.Methodology) diag.List {
	var diags diag.List
	seen := map[string]*Entity{}
	methods := map[string]*model.Methodology{}
	for k, m := range stored {
		methods[k] = m
	}
	for _, e := range b.Entities {
		id := string(e.Kind) + "\x00" + e.Key
		if first, dup := seen[id]; dup {
			what := "key"
			if e.Kind == model.KindEvaluationRun {
				what = "run id"
			}
			diags = append(diags, e.Errorf("", "%s %q is defined twice (first at %s:%d)", what, e.Key, first.File.Rel, line(first)))
			continue
		}
		seen[id] = e
		if e.Kind == model.KindEvaluationRun && e.Run != nil {
			diags = append(diags, runProblems(e)...)
		}
		if e.Kind == model.KindMethodology {
			methods[e.Key] = e.Methodology
			for _, p := range risk.CheckMethodology(e.Methodology) {
				diags = append(diags, e.Errorf(p.Pointer, "%s", p.Msg))
			}
		}
	}
	for _, e := range b.Entities {
		if e.Kind != model.KindRiskScorer {
			continue
		}
		m := methods[e.Scorer.RiskScoringMethodologyKey]
		if m == nil && b.skipped[string(model.KindMethodology)+"\x00"+e.Scorer.RiskScoringMethodologyKey] {
			continue // its methodology has problems of its own, reported already
		}
		if m == nil {
			diags = append(diags, e.Errorf("/risk_scoring_methodology_key", "risk scoring methodology %q not found: add it in the same command or first with `lf add risk-scoring-methodology`", e.Scorer.RiskScoringMethodologyKey))
			continue
		}
		for _, p := range risk.CheckScorer(e.Scorer, m) {
			diags = append(diags, e.Errorf(p.Pointer, "%s", p.Msg))
		}
	}
	return append(diags, b.checkInvalid(seen, methods)...)
}

// duplicateResults reports a (task, scorer, metric) given twice in one run:
// the store holds one value for each.
func duplicateResults(e *Entity) diag.List {
	var diags diag.List
	type metricID struct{ task, scorer, metric string }
	first := map[metricID]int{}
	for i, r := range e.Run.Results {
		metrics := make([]string, 0, len(r.Metrics))
		for m := range r.Metrics {
			metrics = append(metrics, m)
		}
		sort.Strings(metrics)
		for _, m := range metrics {
			id := metricID{r.TaskSpecificationKey, r.ScorerKey, m}
			if j, dup := first[id]; dup {
				ptr := fmt.Sprintf("/results/%d/metrics/%s", i, yamlsrc.EscapePointer(m))
				l, _ := e.File.Doc.Pos(fmt.Sprintf("%s/results/%d", e.Pointer, j))
				diags = append(diags, e.Errorf(ptr, "task %q, scorer %q, metric %q is given twice (first at line %d); a run holds one value for each", id.task, id.scorer, m, l))
				continue
			}
			first[id] = i
		}
	}
	return diags
}

func line(e *Entity) int {
	l, _ := e.File.Doc.Pos(e.Pointer)
	return l
}
