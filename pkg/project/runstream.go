package project

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// A large file of evaluation runs is read one run at a time: as the fast
// YAML reader hands over each run's tree of values, workers check it
// against the schema, decode it and pack it (runpack.go), and the tree
// goes. The whole file's tree (Go maps, two per result) was six to seven
// times the file's size, the largest part of `lf add`'s and `lf
// validate`'s memory. Only a file with nothing to report takes this way to the end:
// at the first run with a problem (or a file the fast reader does not
// take, or other sections with problems) the file is read again whole and
// goes the usual way, so every message is the one the whole tree gives.

// streamMin is the file size from which runs are read one at a time.
var streamMin = 1 << 20 // a variable for tests

// runsSection is the top-level key of the evaluation runs.
const runsSection = "evaluation_runs"

// runStream collects the runs of one file as they are read.
type runStream struct {
	f         *File
	checkOnly bool              // validating: no YAML is rendered
	validate  func(v any) error // the project schema's

	work   chan streamItem
	wg     sync.WaitGroup
	failed atomic.Bool // a run with a problem: the file is read again whole

	runs []*Entity // in file order; filled by the workers
}

type streamItem struct {
	e *Entity
	m map[string]any
}

// parseStreamed parses f.Data reading its runs one at a time, or, when
// that cannot be, as yamlsrc.Parse does. On success f.runs holds the runs
// (packed unless checkOnly) and the document's list of runs holds nils.
func parseStreamed(f *File, checkOnly bool) (*yamlsrc.Doc, diag.List) {
	s, err := schema.Compile("project")
	if err != nil {
		return parseWhole(f)
	}
	rs := &runStream{f: f, checkOnly: checkOnly, validate: s.Validate}
	n := min(runtime.GOMAXPROCS(0), 8)
	rs.work = make(chan streamItem, 2*n)
	for range n {
		rs.wg.Add(1)
		go rs.worker()
	}
	doc, diags, streamed := parseEach(f, rs.take)
	close(rs.work)
	rs.wg.Wait()
	switch {
	case !streamed:
		limitMemory(len(f.Data), false)
		return doc, diags // read whole by goccy: nothing was dropped
	case !rs.failed.Load() && len(rs.runs) == 0:
		return doc, diags // no list of runs: nothing was dropped
	case rs.failed.Load() || diags.HasErrors() || !rs.complete(doc):
		return parseWhole(f)
	}
	f.runs = rs.runs
	return doc, diags
}

// take is the reader's hook: it queues the run for a worker and leaves nil
// in the list in its place.
func (rs *runStream) take(i int, v any) any {
	if rs.failed.Load() {
		return nil // the file will be read again
	}
	m, ok := v.(map[string]any)
	if !ok || i != len(rs.runs) {
		rs.failed.Store(true)
		return nil
	}
	e := &Entity{Kind: model.KindEvaluationRun, File: rs.f, Pointer: fmt.Sprintf("/%s/%d", runsSection, i)}
	rs.runs = append(rs.runs, e)
	rs.work <- streamItem{e, m}
	return nil
}

func (rs *runStream) worker() {
	defer rs.wg.Done()
	for it := range rs.work {
		if !rs.failed.Load() && !rs.read(it.e, it.m) {
			rs.failed.Store(true)
		}
	}
}

// read does for one run what schemaCheck and extract do for a whole file:
// it reports false on any problem, which the whole file's reading will
// then describe.
func (rs *runStream) read(e *Entity, m map[string]any) bool {
	if rs.validate(map[string]any{runsSection: []any{m}}) != nil {
		return false
	}
	r, err := decodeRun(m)
	if err != nil {
		return false
	}
	if !runClean(r) {
		return false
	}
	e.Key = r.EvaluationKey + "/" + r.ID
	if !rs.checkOnly {
		e.packed = pack(r)
		if !e.packed.keepTree(m) {
			// The fast reader takes no file with comments: there are none.
			e.YAML = EntityYAML(model.KindEvaluationRun, m, nil)
		}
	}
	return true
}

// complete tells whether every item of the document's list of runs went
// through take.
func (rs *runStream) complete(doc *yamlsrc.Doc) bool {
	top, _ := doc.Value.(map[string]any)
	items, ok := top[runsSection].([]any)
	if !ok || len(items) != len(rs.runs) {
		return false
	}
	for _, it := range items {
		if it != nil {
			return false
		}
	}
	return true
}

// restValid tells whether a file whose runs were read one at a time (and
// each found valid) is valid as a whole: its other sections are checked
// with the runs' list left empty, which the schema checks item by item.
func restValid(name string, f *File) bool {
	s, err := schema.Compile(name)
	top, ok := f.Doc.Value.(map[string]any)
	if err != nil || !ok {
		return false
	}
	runs := top[runsSection]
	top[runsSection] = []any{}
	defer func() { top[runsSection] = runs }()
	return s.Validate(top) == nil
}

// unstream reads a file whose runs were read one at a time again whole, so
// that its problems are found and described as in any other file.
func (f *File) unstream() {
	if f.runs == nil {
		return
	}
	f.runs = nil
	f.Doc, _ = parseWhole(f) // the same reader took it: no problems
}

// extractStreamed is extract for runs read one at a time: they passed the
// schema and are decoded already.
func (b *Batch) extractStreamed(f *File) diag.List {
	// runProblems found nothing (runClean): Check leaves these runs out
	// (their Run is nil).
	b.Entities = append(b.Entities, f.runs...)
	f.runs = nil
	return nil
}

// runClean tells whether runProblems has nothing to say about r, without
// locating anything: the document's positions are not known while it is
// being read.
func runClean(r *model.EvaluationRun) bool {
	if r.Status == model.StatusCompleted && RunValues(r) == 0 {
		return false // noValues
	}
	// duplicateResults: only results with the same task and scorer can
	// give a metric twice; their metric names are gathered when a pair
	// comes again.
	type pair struct{ task, scorer string }
	first := make(map[pair]int, len(r.Results))
	var names map[pair]map[string]bool
	for i, res := range r.Results {
		k := pair{res.TaskSpecificationKey, res.ScorerKey}
		j, again := first[k]
		if !again {
			first[k] = i
			continue
		}
		if names == nil {
			names = map[pair]map[string]bool{}
		}
		if names[k] == nil {
			names[k] = map[string]bool{}
			for m := range r.Results[j].Metrics {
				names[k][m] = true
			}
		}
		for m := range res.Metrics {
			if names[k][m] {
				return false
			}
			names[k][m] = true
		}
	}
	return true
}
