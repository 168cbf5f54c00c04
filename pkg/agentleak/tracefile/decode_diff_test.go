package tracefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lfcli/lf/pkg/agentleak/internal/tracegen"
	"github.com/lfcli/lf/pkg/internal/jsonlex"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// decodeCheck decodes documents with the fast decoder (one slab for all,
// as a worker does) and with encoding/json into the same types, and fails
// when the fast decoder accepts a document encoding/json rejects or
// decodes any field differently. Traces decoded earlier are checked again
// at the end: a later one must not write over their events.
// With give set, most traces give their events back to the slab once
// checked (as a one-worker scan does, see rewind), at random: the
// decoder then decodes escaped contents into the slab's text buffer,
// which must not write over the texts of the traces kept.
type decodeCheck struct {
	t        *testing.T
	slab     []Event
	kept     []keptTrace
	fast, n  int // documents the fast decoder took, documents seen
	rejected int // documents encoding/json rejected
	give     *rand.Rand
	decoded  int // contents the decoder decoded (ContentDec)
}

type keptTrace struct {
	doc    []byte
	t      *Trace
	events []Event // a deep copy
}

func (c *decodeCheck) check(doc []byte) {
	c.t.Helper()
	c.n++
	var slow Trace
	err := json.Unmarshal(doc, &slow)
	if err != nil {
		c.rejected++
	}
	var fast Trace
	start := c.slab
	give := c.give != nil && c.give.Intn(4) != 0
	defer c.afterTrace(doc, start, give)
	if !fastDecodeTrace(append([]byte(nil), doc...), &fast, &c.slab) {
		return
	}
	c.fast++
	if err != nil {
		c.t.Fatalf("fast decoder accepted what encoding/json rejects (%v): %q", err, doc)
	}
	if msg := traceDiff(&fast, &slow); msg != "" {
		c.t.Fatalf("decoders disagree on %q: %s", doc, msg)
	}
	for i := range fast.Events {
		e := &fast.Events[i]
		if got, want := e.text&^ContentDec, wantContentNote(e.Content); got != want {
			c.t.Fatalf("event %d of %q: content %q noted %#x, want %#x", i, doc, e.Content, got, want)
		}
		if e.text&ContentDec != 0 {
			if e.text&ContentEsc == 0 {
				c.t.Fatalf("event %d of %q: content %q without escapes decoded", i, doc, e.Content)
			}
			c.decoded++
		}
		c.checkText(doc, e)
	}
	for i := range slow.Events {
		// encoding/json's events note nothing: the scanner reads them as
		// it reads any.
		if slow.Events[i].text != 0 {
			c.t.Fatalf("event %d of %q decoded by encoding/json has a note", i, doc)
		}
		c.checkText(doc, &slow.Events[i])
	}
	if cap(fast.Events) != len(fast.Events) {
		c.t.Fatalf("events list of %d has capacity %d: an append would write into the slab", len(fast.Events), cap(fast.Events))
	}
	if give || (c.give == nil && c.n%7 != 0) {
		return
	}
	c.kept = append(c.kept, keptTrace{doc, &fast, deepEvents(fast.Events)})
}

// afterTrace gives a trace's events back to the slab when give is set,
// and checks the slab's spare events: zero, but for the header of a slab
// the decoder made.
func (c *decodeCheck) afterTrace(doc []byte, start []Event, give bool) {
	c.t.Helper()
	if give {
		c.slab = Rewind(start, c.slab)
	}
	if len(c.slab) != 0 {
		c.t.Fatalf("slab has length %d", len(c.slab))
	}
	spare := c.slab[:cap(c.slab)]
	if k := len(spare) - 1; k >= 0 && spare[k].text&slabMark != 0 {
		h := spare[k]
		if h.EventID != "" || h.Channel != "" || h.Source != "" || h.Target != "" || h.Content != nil || h.text&^(slabMark|slabTook) != 0 {
			c.t.Fatalf("slab's header is not one after %q: %+v", doc, h)
		}
		spare = spare[:k]
	}
	for _, e := range spare {
		if e.EventID != "" || e.Channel != "" || e.Source != "" || e.Target != "" || e.Content != nil || e.text != 0 || e.decN != 0 || e.dec != nil {
			c.t.Fatalf("slab's spare event is not zero after %q: %+v", doc, e)
		}
	}
}

// wantContentNote is what the decoder must note of a content it decoded
// (Event.text): a string, its escapes and its bytes above 0x7f.
func wantContentNote(raw []byte) uint8 {
	if len(raw) == 0 || raw[0] != '"' {
		return 0
	}
	fl := uint8(ContentStr)
	if bytes.IndexByte(raw, '\\') >= 0 {
		fl |= ContentEsc
	}
	for _, b := range raw {
		if b >= 0x80 {
			fl |= ContentHigh
		}
	}
	return fl
}

// checkText: the scanner's text of the event, which trusts the decoder's
// note, is eventText's of its raw content (which reads none).
func (c *decodeCheck) checkText(doc []byte, e *Event) {
	c.t.Helper()
	want, werr := EventText(e.Content, nil)
	got, err := noteText(e)
	if got != want || (err == nil) != (werr == nil) {
		c.t.Fatalf("content %q of %q (note %#x): scanner's text %q, %v; eventText %q, %v", e.Content, doc, e.text, got, err, want, werr)
	}
}

func (c *decodeCheck) done() {
	c.t.Helper()
	for _, k := range c.kept {
		if msg := eventsDiff(k.t.Events, k.events); msg != "" {
			c.t.Fatalf("events of %q changed after later traces: %s", k.doc, msg)
		}
		for i := range k.t.Events {
			c.checkText(k.doc, &k.t.Events[i]) // decoded texts too
		}
	}
	if c.give != nil && c.decoded == 0 {
		c.t.Fatalf("no content was decoded by the decoder: the test does not exercise it")
	}
	c.t.Logf("%d documents: %d decoded by the fast path (%d contents unquoted there), %d rejected by encoding/json", c.n, c.fast, c.decoded, c.rejected)
}

func deepEvents(evs []Event) []Event {
	if evs == nil {
		return nil
	}
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = Event{EventID: strings.Clone(e.EventID), Channel: strings.Clone(e.Channel), Source: strings.Clone(e.Source), Target: strings.Clone(e.Target)}
		if e.Content != nil {
			out[i].Content = append(json.RawMessage{}, e.Content...)
		}
	}
	return out
}

// traceDiff describes how a and b differ ("" when they do not); nil and
// empty lists and contents differ.
func traceDiff(a, b *Trace) string {
	if a.RunID != b.RunID || a.AgentName != b.AgentName || a.ScenarioID != b.ScenarioID || a.Timestamp != b.Timestamp {
		return fmt.Sprintf("header %q %q %q %q vs %q %q %q %q", a.RunID, a.AgentName, a.ScenarioID, a.Timestamp, b.RunID, b.AgentName, b.ScenarioID, b.Timestamp)
	}
	return eventsDiff(a.Events, b.Events)
}

func eventsDiff(a, b []Event) string {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return fmt.Sprintf("events %d (nil %v) vs %d (nil %v)", len(a), a == nil, len(b), b == nil)
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.EventID != y.EventID || x.Channel != y.Channel || x.Source != y.Source || x.Target != y.Target {
			return fmt.Sprintf("event %d: %q %q %q %q vs %q %q %q %q", i, x.EventID, x.Channel, x.Source, x.Target, y.EventID, y.Channel, y.Source, y.Target)
		}
		if (x.Content == nil) != (y.Content == nil) || !bytes.Equal(x.Content, y.Content) {
			return fmt.Sprintf("event %d content %q vs %q", i, x.Content, y.Content)
		}
	}
	return ""
}

// TestDecodeMatchesEncodingJSON: on every trace of the shared packs, the
// examples and the benchmark file, the fast decoder decodes (it must take
// them all) exactly what encoding/json decodes.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, give := range []bool{false, true} {
		t.Run(fmt.Sprintf("give=%v", give), func(t *testing.T) { testDecodeMatchesEncodingJSON(t, give) })
	}
}

func testDecodeMatchesEncodingJSON(t *testing.T, give bool) {
	files, _ := filepath.Glob(filepath.Join(testfiles.SharedDir(), "conformance", "*", "*", "traces.jsonl"))
	more, _ := filepath.Glob(filepath.Join(testfiles.SharedDir(), "conformance", "*", "traces.jsonl"))
	files = append(files, more...)
	more, _ = filepath.Glob(filepath.Join(testfiles.Root(t), "examples", "agentleak", "traces", "*.jsonl"))
	files = append(files, more...)
	more, _ = filepath.Glob("../testdata/fuzzseed/*.jsonl")
	files = append(files, more...)
	files = append(files, filepath.Join(testfiles.Root(t), "project", "agentleak", "traces.jsonl"))
	files = append(files, testfiles.ExtraTraceFiles()...)
	c := &decodeCheck{t: t}
	if give {
		c.give = rand.New(rand.NewSource(7))
	}
	// Generated traces on every channel, so that the check has its hundreds
	// of traces in a clone without ../shared too.
	synthetic := syntheticTraces(300, 11)
	inputs := map[string][]byte{"synthetic traces": synthetic}
	order := []string{"synthetic traces"}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		inputs[f] = data
		order = append(order, f)
	}
	for _, f := range order {
		for _, l := range testfiles.Lines(inputs[f]) {
			fast0 := c.fast
			c.check(l)
			var probe Trace
			if c.fast == fast0 && json.Unmarshal(l, &probe) == nil {
				t.Errorf("%s: the fast decoder gave up on a trace encoding/json decodes: %.200s", f, l)
			}
		}
	}
	c.done()
	if c.fast < 100 {
		t.Fatalf("only %d traces found", c.fast)
	}
}

// TestDecodeAdversarial: generated traces full of what the fast decoder
// must decode as encoding/json does or leave to it: escapes, surrogates,
// invalid UTF-8, raw control characters, nulls, repeated keys, keys in
// other cases or with non-ASCII letters that fold to a field's name,
// nested unknown members, numbers valid and not, odd spacing, and
// truncated or mutated documents.
func TestDecodeAdversarial(t *testing.T) {
	t.Parallel()
	for _, give := range []bool{false, true} {
		t.Run(fmt.Sprintf("give=%v", give), func(t *testing.T) { testDecodeAdversarial(t, give) })
	}
}

func testDecodeAdversarial(t *testing.T, give bool) {
	c := &decodeCheck{t: t}
	if give {
		c.give = rand.New(rand.NewSource(11))
	}
	for _, doc := range []string{
		`{"run_id": "a", "run_id": null, "events": []}`,
		`{"run_id": "a", "run_id": "b", "events": null}`,
		`{"events": [{"channel": "log", "channel": null, "source": "s", "source": "t", "content": "x", "content": null}]}`,
		`{"events": [{"channel": "log"}], "events": [{"source": "x"}]}`,
		`{"events": [{"channel": "log", "content": "a"}, {"channel": "tool_call"}], "events": [{"source": "x"}]}`,
		`{"events": null, "events": [{"channel": "log"}]}`,
		`{"events": [], "events": null}`,
		`{"events": [null]}`,
		`{"events": [{"Channel": "log"}]}`,
		`{"events": [{"CONTENT": "x", "channel": "log"}]}`,
		`{"Events": [{"channel": "log"}]}`,
		`{"RUN_ID": "x", "events": []}`,
		"{\"events\": [{\"\u017fource\": \"x\", \"channel\": \"log\"}]}",
		"{\"events\": [{\"content\": \"x\", \"\u212aey\": 1, \"channel\": \"log\"}]}",
		"{\"\u0280un_id\": \"x\", \"events\": []}",
		`{"events": [{"\u0063hannel": "log"}]}`,
		`{"events": [{"event_id :": "a", "channel" :"log", "timestamp\t": 1, "source\u0020": "s"}]}`,
		`{"events": [{"event_id": "a", "channel": "log", "timestamp": "t", "metadata": {}, "content": "c", "target": "t", "source": "s"}]}`,
		`{"events": [{"channel": "log", "channels": "x", "event_idx": 1, "content_type": "t", "sourc": 2, "targets": [], "metadata": {"a": [1, {"b": null}]}}]}`,
		`{"run_id": "\ud83d\ude00 \ud800 \udc00\ud800 \ud800\u0041 \u00e9\u2028", "events": []}`,
		"{\"run_id\": \"a\xff\xfeb\xc3\", \"agent_name\": \"\xed\xa0\x80\", \"events\": [{\"channel\": \"log\", \"content\": \"\xff\\n\", \"target\": \"\\u00e9\xff\"}]}",
		"{\"run_id\": \"a\x01\", \"events\": []}",
		"{\"events\": [{\"channel\": \"log\", \"content\": \"abcdefghijklmnopqrstuvwxyz\x1f0123456789\"}]}",
		"{\"events\": [{\"channel\": \"log\", \"content\": \"abcdefghijklmnopqrstuvwxyz0123456789\\\"\x7f\"}]}",
		`{"events": [{"channel": "log", "content": "\q"}]}`,
		`{"events": [{"channel": "log", "content": "\u12"}]}`,
		`{"events": [{"channel": "log", "content": "ab\u12\""}]}`,
		`{"events": [{"channel": "log", "content": "\\\"\\"}]}`,
		`{"events": [{"channel": "log", "content": "\\\""}]}`,
		`{"events": [{"channel": "log", "content": "\""}]`,
		`{"events": [{"channel": "log", "content": 01}]}`,
		`{"events": [{"channel": "log", "content": -0.0e-0}]}`,
		`{"events": [{"channel": "log", "x": [1., 2]}]}`,
		`{"events": [{"channel": "log", "x": .5}]}`,
		`{"events": [{"channel": "log", "x": -}]}`,
		`{"events": [{"channel": "log", "x": 1e}]}`,
		`{"events": [{"channel": "log", "x": 1E+5, "y": -12.5e-3, "z": 0}]}`,
		`{"events": [{"channel": "log", "x": tru}]}`,
		`{"events": [{"channel": 5}]}`,
		`{"events": [{"channel": true}]}`,
		`{"events": [{"channel": {}}]}`,
		`{"run_id": 1, "events": []}`,
		`{"events": {}}`,
		`{"events": "x"}`,
		`[]`,
		`"x"`,
		`null`,
		`{}`,
		` {"events":[]} `,
		"\t{\r\n\"events\"\t:\n[\r{ \"channel\" : \"log\" , \"content\" : \"x\" } ]\n}\n",
		`{"events": []} x`,
		`{"events": []}}`,
		`{"events": [],}`,
		`{"events": [{"channel": "log"},]}`,
		`{"events": [{"channel": "log",}]}`,
		`{,"events": []}`,
		`{"events" []}`,
		`{"events": [{"channel" "log"}]}`,
		`{"a": {"b": {"c": [[[[[]]]]]}}, "events": []}`,
		`{"a": ` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `, "events": []}`,
		`{"a": ` + strings.Repeat(`{"x":`, 600) + "1" + strings.Repeat("}", 600) + `, "events": []}`,
	} {
		c.check([]byte(doc))
	}
	// Metadata objects near the recorders' shape, each wrong or odd in one
	// place, in an event long enough for the decoder's word loads.
	for _, md := range []string{
		`{}`, `{ }`, `{"x": falsy}`, `{"x": fals}`, `{"x": falsee}`, `{"x": truee}`, `{"x": tru}`, `{"x": trUe}`, `{"x": nul}`, `{"x": null}`,
		`{"x" : true}`, `{"x":true}`, `{"x":  true}`, `{"x"; true}`, `{"x": true,}`, `{"x": true, }`, `{"x": true,"y": false}`, `{"x": true ,"y": 1}`,
		`{"x": "a\"b"}`, `{"x\"": "b"}`, `{"x": "a` + "\x01" + `"}`, `{"x": "é"}`, `{"x": "a"` + `}}`, `{"x": "a"]`, `{"x": "a"`, `{"x": true` + "\n}",
		`{"x": 1}`, `{"x": -}`, `{"x": {}}`, `{"x": []}`, `{x: true}`, `{"x": true "y": false}`, `{"x": "a", "y": "b", "z": true}`, `[]`, `"m"`, `{"x": t}`,
	} {
		c.check([]byte(`{"events": [{"event_id": "evt_001", "channel": "log", "metadata": ` + md + `, "timestamp": "2026-12-02T08:47:17.036864Z"}, {"channel": "log"}]}`))
		c.check([]byte(`{"events": [{"channel": "log", "metadata": ` + md + `}]}`))
	}
	// Timestamps and metadata values whose plain search stops at a byte
	// that is no quote, right before what could follow a string.
	for _, bad := range []string{"\x01", "\x1f", `\\`, "\xc3"} {
		for _, after := range []string{"}]}", `, "channel": "log"}]}`, `}, {"channel": "log"}]}`, `"}]}`} {
			for _, pad := range []string{"", "2026-12-02T08:47:17"} {
				c.check([]byte(`{"events": [{"channel": "log", "timestamp": "` + pad + bad + after))
				c.check([]byte(`{"events": [{"channel": "log", "metadata": {"k": "` + pad + bad + after))
				c.check([]byte(`{"events": [{"channel": "log", "metadata": {"k` + pad + bad + `": "v"}}]}`))
				c.check([]byte(`{"events": [{"channel": "log", "metadata": {"k` + pad + bad + `: "v"}}]}`))
			}
		}
	}
	// Plain timestamps of every length at the end of the document: the
	// fast decoder takes them all (its plain search reads the last bytes).
	for n := 0; n <= 20; n++ {
		fast0 := c.fast
		c.check([]byte(`{"events": [{"channel": "log", "timestamp": "` + strings.Repeat("7", n) + `"}]}`))
		if c.fast == fast0 {
			t.Errorf("the fast decoder gave up on a timestamp of %d bytes at the end", n)
		}
	}
	// Contents that end near the end of the document, where the decoder's
	// word loads stop and its last bytes are read otherwise.
	for _, piece := range []string{"", "é", `\n`, "\xff", `\u00e9`, "é\\n", `\n` + "é", "\x01", `\q`} {
		for n := 0; n <= 17; n++ {
			for _, tail := range []string{"", "b", "bcdefghij"} {
				c.check([]byte(`{"events": [{"channel": "log", "content": "` + strings.Repeat("a", n) + piece + tail + `"}]}`))
			}
		}
	}
	rng := rand.New(rand.NewSource(42))
	for n := 0; n < testfiles.Iterations(30000); n++ {
		doc := tracegen.Trace(rng)
		c.check(doc)
		// Mutated: a byte changed, or the document cut short.
		m := append([]byte(nil), doc...)
		switch rng.Intn(3) {
		case 0:
			m[rng.Intn(len(m))] = tracegen.Bytes[rng.Intn(len(tracegen.Bytes))]
		case 1:
			m = m[:rng.Intn(len(m))]
		default:
			k := rng.Intn(len(m))
			m = append(m[:k:k], append([]byte(tracegen.Pieces[rng.Intn(len(tracegen.Pieces))]), m[k:]...)...)
		}
		c.check(m)
	}
	c.done()
	if accepted := c.n - c.rejected; c.fast*2 < accepted {
		t.Fatalf("the fast decoder took only %d of the %d documents encoding/json decodes: the test does not exercise it", c.fast, accepted)
	}
}

// TestUnquoteMatchesEncodingJSON: jsonlex.Unquote (and jsonlex.UnquoteTo appending to a
// used buffer) decodes every string encoding/json accepts as it does, with
// escapes at every offset of a word and near the end, and reports a
// malformed escape.
func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	check := func(raw string) {
		t.Helper()
		var want string
		err := json.Unmarshal([]byte(raw), &want)
		got, ok := jsonlex.Unquote([]byte(raw))
		if err != nil {
			if ok && strings.IndexFunc(raw, func(r rune) bool { return r < 0x20 }) < 0 {
				t.Fatalf("jsonlex.Unquote(%q) = %q, ok; encoding/json: %v", raw, got, err)
			}
			return
		}
		if !ok || got != want {
			t.Fatalf("jsonlex.Unquote(%q) = %q, %v; encoding/json %q", raw, got, ok, want)
		}
		prefix := []byte("prefix")
		out, ok := jsonlex.UnquoteTo(append(make([]byte, 0, rng.Intn(40)), prefix...), []byte(raw))
		if !ok || !bytes.HasPrefix(out, prefix) || jsonlex.CoerceUTF8(out[len(prefix):]) != want {
			t.Fatalf("jsonlex.UnquoteTo(prefix, %q) = %q, %v; encoding/json %q", raw, out, ok, want)
		}
	}
	for _, esc := range append([]string{`\`, `\u12`, `\x`, `\u00e`, `\ud800\u`}, tracegen.Pieces...) {
		for pre := 0; pre <= 17; pre++ {
			for post := 0; post <= 9; post++ {
				check(`"` + strings.Repeat("a", pre) + esc + strings.Repeat("b", post) + `"`)
			}
		}
	}
	for n := 0; n < testfiles.Iterations(30000); n++ {
		var sb strings.Builder
		sb.WriteByte('"')
		for k := rng.Intn(10); k > 0; k-- {
			if rng.Intn(2) == 0 {
				sb.WriteString(strings.Repeat("x", rng.Intn(20)))
			} else {
				sb.WriteString(tracegen.Pieces[rng.Intn(len(tracegen.Pieces))])
			}
		}
		sb.WriteByte('"')
		check(sb.String())
	}
}

// TestUnquoteASCIIIsValidUTF8: jsonlex.UnquoteTo's text of an ASCII string is
// valid UTF-8 whatever its escapes (every \uXXXX alone, surrogates in
// pairs, reversed, cut or followed by anything), so that the scanner
// need not check it (ContentHigh unset).
func TestUnquoteASCIIIsValidUTF8(t *testing.T) {
	t.Parallel()
	check := func(raw string) {
		t.Helper()
		out, ok := jsonlex.UnquoteTo(nil, []byte(raw))
		if ok && !utf8.Valid(out) {
			t.Fatalf("jsonlex.UnquoteTo(%q) = %q: not UTF-8", raw, out)
		}
	}
	for r := 0; r <= 0xffff; r++ {
		check(fmt.Sprintf(`"a\\u%04x"`, r))
		check(fmt.Sprintf(`"\\ud83d\\u%04Xb"`, r))
		check(fmt.Sprintf(`"\\u%04x\\udc00"`, r))
	}
	rng := rand.New(rand.NewSource(5))
	pieces := []string{"a", "0123456789abcdef", `\n`, `\"`, `\\`, `\/`, `\b`, `\u`, `\ud800`, `\udbff`, `\udc00`, `\udfff`, "\x7f", "\x01"}
	for n := 0; n < testfiles.Iterations(200000); n++ {
		var sb strings.Builder
		sb.WriteByte('"')
		for k := rng.Intn(12); k > 0; k-- {
			if rng.Intn(3) == 0 {
				fmt.Fprintf(&sb, `\u%04x`, []int{rng.Intn(0x10000), 0xd800 + rng.Intn(0x800)}[rng.Intn(2)])
			} else {
				sb.WriteString(pieces[rng.Intn(len(pieces))])
			}
		}
		sb.WriteByte('"')
		check(sb.String())
	}
}
