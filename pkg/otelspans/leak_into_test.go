package otelspans

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// spanCorpus is the repository's span file and the OpenTelemetry
// conformance packs' (when the shared folder is there), as traces.
func spanCorpus(t *testing.T) []*Trace {
	t.Helper()
	files := []string{filepath.Join("..", "..", "project", "agentleak", "spans.otlp.jsonl")}
	packs, _ := filepath.Glob(filepath.Join(testfiles.SharedDir(), "conformance", "agentleak-otel", "*", "spans.otlp.jsonl"))
	var out []*Trace
	for _, f := range append(files, packs...) {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := Read(f, r, Auto)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ts...)
	}
	return out
}

// TestLeakEventsIntoReusesBuffer: events made over a buffer that held
// another trace's events are LeakEvents' events, in the buffer's storage
// when it has room; both mappings, each trace after a larger one.
func TestLeakEventsIntoReusesBuffer(t *testing.T) {
	traces := spanCorpus(t)
	for _, m := range []Mapping{MappingLF, MappingEngine} {
		var buf []LeakEvent
		for pass := range 2 {
			for _, tr := range traces {
				want := LeakEvents(tr, m)
				before := buf
				buf = LeakEventsInto(buf, tr, m)
				if !reflect.DeepEqual(buf, want) && !(len(buf) == 0 && len(want) == 0) {
					t.Fatalf("mapping %d, trace %s: over a used buffer\n%s\nLeakEvents\n%s", m, tr.RunID, digest(buf), digest(want))
				}
				if pass == 1 && cap(before) >= 2*len(tr.Spans)+1 && len(buf) > 0 && &buf[0] != &before[:1][0] {
					t.Fatalf("mapping %d, trace %s: a buffer with room for the events was not reused", m, tr.RunID)
				}
				buf = buf[:cap(buf)] // the next trace finds all of it written
			}
		}
	}
}

// TestKeyLensFindAgents: the lengths of a span's attribute keys never
// hide an agent key the span has: each of the mapping's agent keys names
// the span's agent among other attributes (keys of 64 characters and
// more, whose lengths wrap), and with none the span's name does.
func TestKeyLensFindAgents(t *testing.T) {
	long := strings.Repeat("k", 64)
	others := []KV{{Key: "input.value", Value: "hello"}, {Key: long + "agent.name", Value: "wrapped"}, {Key: long, Value: "x"}}
	for _, key := range append([]string{""}, agentKeys...) {
		kvs := append([]KV(nil), others...)
		want := "span-name"
		if key != "" {
			kvs = append(kvs, KV{Key: key, Value: "agent-" + key})
			want = "agent-" + key
		}
		tr := &Trace{Spans: []*Span{{SpanID: "a", Name: "span-name", Attrs: NewAttrs(kvs)}}}
		for _, m := range []Mapping{MappingLF, MappingEngine} {
			evs := LeakEvents(tr, m)
			if len(evs) != 1 || evs[0].Target != want {
				t.Errorf("key %q, mapping %d: events %+v, want one to %q", key, m, evs, want)
			}
		}
	}
}

// TestFirstOfMatchesFirst: firstOf with a span's key lengths finds what
// Attrs.First finds, over random attributes (repeated keys, empty and
// null values, keys whose lengths wrap at 64) and the mapping's lists.
func TestFirstOfMatchesFirst(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	lists := [][]string{agentKeys, lfToolNameKeys, lfToolArgKeys, lfToolOutKeys, toolArgKeys, outputKeys, lfInputKeys, lfOutputKeys}
	var pool []string
	for _, l := range lists {
		pool = append(pool, l...)
	}
	pool = append(pool, strings.Repeat("x", 64)+"input.value", "x", strings.Repeat("y", 75))
	for range testfiles.Iterations(20000) {
		var kvs []KV
		for range r.IntN(12) {
			var v any = "v" + strconv.Itoa(r.IntN(100))
			switch r.IntN(5) {
			case 0:
				v = ""
			case 1:
				v = nil
			}
			kvs = append(kvs, KV{Key: pool[r.IntN(len(pool))], Value: v})
		}
		at := NewAttrs(kvs)
		for _, l := range lists {
			gs, gok := firstOf(at, attrLens(at), l)
			ws, wok := at.First(l...)
			if gs != ws || gok != wok {
				t.Fatalf("%v over %v: firstOf %q %v, First %q %v", l, kvs, gs, gok, ws, wok)
			}
		}
	}
}
