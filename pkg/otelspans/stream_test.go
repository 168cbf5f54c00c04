package otelspans

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// traceDigest lists traces as Read and Stream hand them over.
func traceDigest(ts []*Trace) string {
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "%s %s %s:%d", t.RunID, t.ScenarioID, t.File, t.Line)
		for _, s := range t.Spans {
			fmt.Fprintf(&b, " %s@%d", s.Name, s.Line)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// streamLines are OTLP JSON lines whose traces interleave: trace 1 on
// lines 1 and 3, trace 2 on line 2, trace 3 on line 4, spans without a
// trace id on line 5, trace 4 on line 6.
func streamLines(t *testing.T) []string {
	line := func(res map[string]string, specs ...spanSpec) string { return string(jsonOf(t, build(res, specs...))) }
	noID := strings.ReplaceAll(line(nil, spanSpec{name: "orphan"}), `"traceId":"01020300000000000000000000000000",`, "")
	return []string{
		line(nil, spanSpec{name: "a1", trace: 1}),
		line(map[string]string{ScenarioAttr: "s2"}, spanSpec{name: "b1", trace: 2}, spanSpec{name: "b2", trace: 2}),
		line(map[string]string{ScenarioAttr: "s1"}, spanSpec{name: "a2", trace: 1}),
		line(nil, spanSpec{name: "c1", trace: 3}),
		noID,
		line(nil, spanSpec{name: "d1", trace: 4}),
	}
}

// streamAll runs Stream over data (a file of that content), with the
// first pass, stopping after stop traces (-1: never). With gate, its
// reader gives the lines after the fourth only once a trace has been
// handed over (or after a few seconds: early tells which).
func streamAll(t *testing.T, data string, stop int, gated bool) (got []*Trace, early bool) {
	got, early, err := streamDecoders(t, data, stop, gated, 1)
	if err != nil {
		t.Fatal(err)
	}
	return got, early
}

// streamDecoders is streamAll with that many decoding goroutines, and the
// error.
func streamDecoders(t *testing.T, data string, stop int, gated bool, decoders int) (got []*Trace, early bool, err error) {
	path := filepath.Join(t.TempDir(), "spans.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	r := &gatedReader{data: []byte(data), gate: gate, after: -1, early: true}
	if gated {
		r.after = 4
	}
	err = StreamDecoders(path, r, OTLPJSON, func() (io.ReadCloser, error) { return os.Open(path) }, decoders, func(tr *Trace) bool {
		if len(got) == 0 {
			close(gate)
		}
		got = append(got, tr)
		return len(got) != stop
	})
	if err != nil { // named as in the other tests' files
		err = errors.New(strings.ReplaceAll(err.Error(), path, "spans.jsonl"))
	}
	return got, r.early, err
}

// gatedReader reads data one byte at a time and waits for gate after
// its after-th line break.
type gatedReader struct {
	data  []byte
	lines int
	after int
	gate  chan struct{}
	early bool
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if len(g.data) == 0 {
		return 0, io.EOF
	}
	if g.lines == g.after {
		select {
		case <-g.gate:
		case <-time.After(5 * time.Second):
			g.early = false
		}
		g.lines++
	}
	p[0] = g.data[0]
	g.data = g.data[1:]
	if p[0] == '\n' {
		g.lines++
	}
	return 1, nil
}

func TestStreamEqualsRead(t *testing.T) {
	lines := streamLines(t)
	cases := map[string]string{
		"plain":       strings.Join(lines, "\n") + "\n",
		"blank lines": "\n" + strings.Join(lines, "\n\n"),
		"spaced key":  strings.Replace(strings.Join(lines, "\n"), `"traceId":"03`, `"traceId" : "03`, 1),
		"snake case":  strings.Replace(strings.Join(lines, "\n"), `"traceId":"02`, `"trace_id":"02`, 1),
		"snake case later": strings.Join(lines[:2], "\n") + "\n" +
			strings.Replace(lines[2], `"traceId":"01`, `"trace_id":"01`, 1) + "\n" + strings.Join(lines[3:], "\n"),
		"escaped key":  strings.Replace(strings.Join(lines, "\n"), `"traceId":"04`, `"trace\u0049d":"04`, 1),
		"one document": `{"resourceSpans": [` + "\n" + strings.TrimPrefix(lines[0], `{"resourceSpans":[`),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := Read("spans.jsonl", strings.NewReader(data), OTLPJSON)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := streamAll(t, data, -1, false)
			// Stream's file is a temporary path: compare under one name.
			for _, tr := range got {
				tr.File = "spans.jsonl"
			}
			if g, w := traceDigest(got), traceDigest(want); g != w {
				t.Errorf("Stream:\n%s\nRead:\n%s", g, w)
			}
		})
	}
}

// TestStreamDecoders: lines decoded by several goroutines reach fn as
// with one: the same traces in the same order, the same error at the
// same line (after the same traces), the same stop.
func TestStreamDecoders(t *testing.T) {
	lines := streamLines(t)
	var many []string
	for range 7 { // more lines than the decoders' slots
		many = append(many, lines...)
	}
	bad := append(append(append([]string(nil), many[:9]...), `{"resourceSpans": 5}`), many[9:]...)
	cases := map[string]string{
		"plain":        strings.Join(lines, "\n") + "\n",
		"many":         strings.Join(many, "\n"),
		"blank lines":  "\n" + strings.Join(many, "\n\n"),
		"bad line":     strings.Join(bad, "\n"),
		"bad json":     strings.Join(lines[:3], "\n") + "\n{\"resourceSpans\": [\n" + lines[3],
		"one document": `{"resourceSpans": [` + "\n" + strings.TrimPrefix(lines[0], `{"resourceSpans":[`),
	}
	for name, data := range cases {
		for _, stop := range []int{-1, 3} {
			t.Run(fmt.Sprintf("%s stop %d", name, stop), func(t *testing.T) {
				want, _, werr := streamDecoders(t, data, stop, false, 1)
				got, _, gerr := streamDecoders(t, data, stop, false, 3)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Errorf("error %v, with one decoder %v", gerr, werr)
				}
				if (werr != nil) != (name == "bad line" || name == "bad json") && stop < 0 {
					t.Errorf("error %v", werr)
				}
				for _, tr := range append(got, want...) {
					tr.File = "spans.jsonl"
				}
				if g, w := traceDigest(got), traceDigest(want); g != w {
					t.Errorf("3 decoders:\n%s\n1 decoder:\n%s", g, w)
				}
			})
		}
	}
}

func TestStreamHandsOverEarly(t *testing.T) {
	got, early := streamAll(t, strings.Join(streamLines(t), "\n")+"\n", -1, true)
	var ids []string
	for _, tr := range got {
		ids = append(ids, tr.RunID[:2])
	}
	// Trace 1 ends on line 3, so trace 2 (line 2) waits for it; the trace
	// without an id (named after the file) is held to the end, and trace
	// 4, after it, too.
	if g := strings.Join(ids, " "); g != "01 02 03 sp 04" {
		t.Fatalf("order %s", g)
	}
	if !early {
		t.Error("no trace handed over before line 5 was read: not streamed")
	}
}

func TestStreamStops(t *testing.T) {
	got, _ := streamAll(t, strings.Join(streamLines(t), "\n")+"\n", 2, false)
	if len(got) != 2 {
		t.Fatalf("%d traces after fn said stop at 2", len(got))
	}
}

func TestIndexTraceLines(t *testing.T) {
	lines := streamLines(t)
	data := strings.Join(lines, "\n") + "\n" + `{"note":"traceId"}` + "\n" + lines[3]
	x, err := indexTraceLines(func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := x.last["01020300000000000000000000000000"]; got != 3 {
		t.Errorf("trace 1 last on line %d, want 3", got)
	}
	if got := x.last["03020300000000000000000000000000"]; got != 8 {
		t.Errorf("trace 3 last on line %d, want 8", got)
	}
	if x.uncertain != 7 {
		t.Errorf("uncertain line %d, want 7", x.uncertain)
	}
}

// BenchmarkStreamOTLP reads OTLP JSON lines of 1,000 traces of 6 spans
// (about 1 KB of text each) with the first pass, as lf agentleak scan
// reads a span file, and maps each trace to AgentLeak events.
func BenchmarkStreamOTLP(b *testing.B) {
	text := strings.Repeat("The customer asked about the booking reference 4417-2290; ", 16)
	var buf bytes.Buffer
	for i := range 1000 {
		specs := []spanSpec{{name: "agent", attrs: [][2]string{{"openinference.span.kind", "AGENT"}, {"input.value", text}}}}
		for k := range 5 {
			specs = append(specs, spanSpec{name: "tool", start: int64(k + 1), attrs: [][2]string{
				{"openinference.span.kind", "TOOL"}, {"tool.name", "search"}, {"input.value", text}, {"output.value", text},
			}})
		}
		td := build(nil, specs...)
		rs := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		for k := 0; k < rs.Len(); k++ {
			id := rs.At(k).TraceID()
			id[4], id[5] = byte(i>>8), byte(i)
			rs.At(k).SetTraceID(id)
		}
		data, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		n := 0
		err := Stream("spans.jsonl", bytes.NewReader(data), OTLPJSON, func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data)), nil
		}, func(tr *Trace) bool {
			n += len(LeakEvents(tr, MappingLF))
			return true
		})
		if err != nil || n != 11_000 {
			b.Fatalf("%v, %d events", err, n)
		}
	}
}

// TestIndexTraceLinesSplit: the first pass in two halves finds what one
// pass finds, wherever the middle falls.
func TestIndexTraceLinesSplit(t *testing.T) {
	lines := streamLines(t)
	var many []string
	for i := range 40 {
		many = append(many, lines[i%len(lines)])
		if i == 27 {
			many = append(many, `{"note":"traceId"}`) // uncertain
		}
	}
	defer func(n int64) { splitIndexSize = n }(splitIndexSize)
	splitIndexSize = 1
	for _, data := range []string{strings.Join(many, "\n") + "\n", strings.Join(many, "\n"), strings.Join(many[:27], "\n")} {
		path := filepath.Join(t.TempDir(), "spans.jsonl")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		open := func() (io.ReadCloser, error) { return os.Open(path) }
		want, err := indexTraceLines(open)
		if err != nil {
			t.Fatal(err)
		}
		got, err := indexTraceLinesSplit(open)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("in two halves %v, in one %v", got, want)
		}
		if lineAfter(mustOpen(t, path), int64(len(data)/2)) == 0 {
			t.Error("no line break found after the middle")
		}
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
