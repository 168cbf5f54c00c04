package yamlsrc

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// generatedFlowRuns is generatedRuns in flow style, as people write run
// files by hand (the README's `metrics: {accuracy: 0.8}`): each result one
// flow mapping, and some metrics as a flow mapping in a block one.
func generatedFlowRuns(n int) []byte {
	var b strings.Builder
	b.WriteString("evaluation_runs:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - evaluation_key: eval-%d\n    id: run-%d\n    created_at: \"2026-01-15T09:00:00Z\"\n    status: completed\n    tags: [a, 'b', \"c\"]\n    results:\n", i%10, i)
		for t := 0; t < 5; t++ {
			if t == 4 {
				fmt.Fprintf(&b, "      - task_specification_key: task-%d\n        scorer_key: exact_match\n        metrics: {accuracy: 0.%03d, count: %d}\n", t, (i*7+t)%1000, i)
				continue
			}
			fmt.Fprintf(&b, "      - {task_specification_key: task-%d, scorer_key: 'exact_match', metrics: {accuracy: 0.%03d, count: %d}}\n", t, (i*7+t)%1000, i)
		}
	}
	return []byte(b.String())
}

// TestFastFlowAgreesWithGoccy: flow collections on one line take the fast
// path and give goccy's values, positions and key order; what the fast
// path does not read falls back (and agree checks nothing then).
func TestFastFlowAgreesWithGoccy(t *testing.T) {
	if !agree(t, "generated flow", generatedFlowRuns(50)) {
		t.Fatal("the fast path refused the generated flow-style runs file")
	}
	taken := []string{
		"a:\n  - {k: v, m: {x: 1, z: 2.5}, l: [1, 2]}\n  - {}\nb: [x, {c: d}, []]\nc: { p: 1 , q: 'z' }\n",
		"a: [ 1, 2 ]\nb: {k: \"v w\"}\n",
		"a: {}\nb: []\nc: [[1], [[2]], {}]\n",
		"m: {'quoted key': 1, \"k2\": -3}\n",
		"x: [-1.5, 0, true, null, False, ~]\n",
	}
	for i, src := range taken {
		if !agree(t, fmt.Sprint("flow ", i), []byte(src)) {
			t.Errorf("the fast path refused %q", src)
		}
	}
	for i, src := range []string{
		"a: {k: v w}\n",           // a plain scalar of two words
		"a: {k: 1,}\n",            // a trailing comma
		"a: {k: 1} x\n",           // text after the collection
		"a: {k: 1,\n  m: 2}\n",    // over two lines
		"a: [1, 2\n  ]\n",         // over two lines
		"a: {k: 1, k: 2}\n",       // a duplicate key
		"a: {\"k\":1}\n",          // JSON's colon without a space
		"a: [a: 1]\n",             // a single-pair mapping in a list
		"a: {k: }\n",              // an empty value
		"a: {k: http://x}\n",      // a colon in a plain scalar
		"a: [yes, no]\n",          // YAML 1.1 booleans
		"a: {k: [1, {m: [2]}]}\n", // nested, taken
	} {
		agree(t, fmt.Sprint("edge ", i), []byte(src))
	}
}

// TestFlowStyleMemory bounds what reading a flow-style runs file costs in
// memory, as a multiple of the file's size. A peak RSS cannot be measured
// reliably inside a test process, so the test measures its two causes:
// the bytes allocated while parsing (TotalAlloc: everything the collector
// must later reclaim, which with GOGC's headroom sets the peak; goccy's
// tree of a flow-style file allocated about 160 times the file) and the
// heap the parsed document keeps alive once garbage is collected (the tree
// of values lf add works on). Both stay under 10 times the file, for the
// flow style as for the block style.
func TestFlowStyleMemory(t *testing.T) {
	for name, data := range map[string][]byte{"flow": generatedFlowRuns(4000), "block": generatedRuns(4000)} {
		var before, after, kept runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		doc, ds := Parse(name+".yaml", data)
		runtime.ReadMemStats(&after)
		if len(ds) > 0 {
			t.Fatal(ds)
		}
		runtime.GC()
		runtime.ReadMemStats(&kept)
		runtime.KeepAlive(doc)
		size := float64(len(data))
		allocated := float64(after.TotalAlloc-before.TotalAlloc) / size
		retained := (float64(kept.HeapAlloc) - float64(before.HeapAlloc)) / size
		t.Logf("%s: %d bytes, allocated %.1fx, retained %.1fx (besides the file)", name, len(data), allocated, retained)
		if allocated > 10 || retained > 10 {
			t.Errorf("%s style: parsing allocated %.1f times the file and keeps %.1f times it; want both under 10", name, allocated, retained)
		}
	}
}
