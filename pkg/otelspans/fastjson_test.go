package otelspans

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// testCache is shared by the documents of a test, as a decoder's are.
var testCache = newStrCache()

// checkFast holds fastOTLP to pdata on doc: when the fast path reads it,
// pdata must read it too, into the same spans. It reports whether the
// fast path read it.
func checkFast(t *testing.T, doc []byte) bool {
	t.Helper()
	fast, ok := fastOTLP(doc, 7, testCache)
	if !ok {
		return false
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(doc)
	if err != nil {
		t.Fatalf("the fast path read what pdata rejects (%v):\n%s", err, doc)
	}
	want := FromPdata(td, 7)
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("the fast path and pdata differ on\n%s\nfast: %s\npdata: %s", doc, spansDump(fast), spansDump(want))
	}
	if plain, ok := fastOTLP(doc, 7, nil); !ok || !reflect.DeepEqual(plain, want) {
		t.Fatalf("the fast path without its cache differs on\n%s", doc)
	}
	return true
}

func spansDump(spans []*Span) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "\n  %+v res=%+v events=%+v", *s, s.Resource, s.Events)
	}
	return b.String()
}

// otlpGen writes OTLP JSON documents the way many writers do: fields in
// any order, integers as strings or numbers, escapes, unknown and missing
// fields, snake_case names, enums by name, and now and then something
// invalid (a bad id, invalid UTF-8, a repeated field).
type otlpGen struct {
	r     *rand.Rand
	odd   bool // allow what the fast path leaves to pdata
	b     bytes.Buffer
	trace string // the last trace id written, which spans often share
}

func (g *otlpGen) p(n int) bool { return g.r.IntN(n) == 0 }

// obj writes an object of the fields (name, writer) in a shuffled order,
// each present with probability keep (1 = all).
func (g *otlpGen) obj(fields ...any) {
	type field struct {
		name string
		w    func()
	}
	var fs []field
	for i := 0; i+1 < len(fields); i += 2 {
		name := fields[i].(string)
		if g.odd && g.p(6) {
			continue // missing
		}
		if g.odd && g.p(40) {
			name = snake(name)
		}
		fs = append(fs, field{name, fields[i+1].(func())})
	}
	if g.odd && g.p(15) {
		fs = append(fs, field{"someNewField", func() { g.anyJSON(2) }})
	}
	if g.odd && g.p(60) && len(fs) > 0 {
		fs = append(fs, fs[0]) // repeated
	}
	if g.p(2) {
		g.r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	}
	g.b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			g.b.WriteString(g.sep(","))
		}
		g.str(f.name)
		g.b.WriteString(g.sep(":"))
		f.w()
	}
	g.b.WriteByte('}')
}

func (g *otlpGen) sep(s string) string {
	if g.p(8) {
		return " " + s + "\n\t"
	}
	return s
}

func snake(name string) string {
	var b strings.Builder
	for _, c := range name {
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (g *otlpGen) arr(n int, w func()) {
	g.b.WriteByte('[')
	for i := range n {
		if i > 0 {
			g.b.WriteString(g.sep(","))
		}
		w()
	}
	g.b.WriteByte(']')
}

var genTexts = []string{
	"", "plain", "banking_assistant", "agentleak.scenario_id", "input.value", "output.value",
	"tool.name", "openinference.span.kind", "TOOL", "LLM", "AGENT", "gen_ai.prompt",
	"quote \" and backslash \\ and slash /", "line\nbreak\ttab\r", "caf\u00e9 \u65e5\u672c \U0001F600",
	"<INFORMATION>\\n", "US133000000121212121212", "\x01ctl", "del\x7f",
	// Texts longer than the string cache keeps, plain and not.
	strings.Repeat("The customer asked about the booking reference 4417-2290; ", 3),
	strings.Repeat("Transaction(id=5, subject='\\n\\n<INFORMATION>\\n', caf\u00e9)\n", 3),
}

// str writes a string, escaping some characters in the ways writers do.
func (g *otlpGen) str(s string) {
	g.b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			g.b.WriteByte('\\')
			g.b.WriteRune(c)
		case c == '\n' && g.p(2):
			g.b.WriteString(`\n`)
		case c == '/' && g.p(2):
			g.b.WriteString(`\/`)
		case c < 0x20 && (!g.odd || !g.p(4)):
			fmt.Fprintf(&g.b, `\u%04x`, c)
		case c > 0x7f && g.p(3):
			if c > 0xffff {
				c -= 0x10000
				fmt.Fprintf(&g.b, `\u%04X\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			} else {
				fmt.Fprintf(&g.b, `\u%04x`, c)
			}
		case c < 0x80 && g.odd && g.p(50):
			fmt.Fprintf(&g.b, `\u%04x`, c)
		default:
			g.b.WriteRune(c)
		}
	}
	if g.odd && g.p(80) {
		g.b.WriteString("\xff\xfe") // invalid UTF-8
	}
	if g.odd && g.p(200) {
		g.b.WriteString(`\ud800`) // a lone surrogate
	}
	g.b.WriteByte('"')
}

func (g *otlpGen) text() { g.str(genTexts[g.r.IntN(len(genTexts))]) }

// num writes an unsigned integer as a string or a number, now and then
// with twenty digits (in range or not) or leading zeros as a string.
func (g *otlpGen) num(v uint64) {
	switch {
	case g.p(30):
		fmt.Fprintf(&g.b, `"%020d"`, v)
		return
	case g.odd && g.p(30):
		// Twenty digits, in range and not, and what is no number.
		bad := []string{"18446744073709551615", "18446744073709551616", "99999999999999999999", `"27670116110564327424"`, `"12:30"`, `"+5"`, `"1_000"`, `""`}
		g.b.WriteString(bad[g.r.IntN(len(bad))])
		return
	}
	if g.p(2) {
		fmt.Fprintf(&g.b, `"%d"`, v)
	} else {
		fmt.Fprintf(&g.b, `%d`, v)
	}
}

func (g *otlpGen) id(n int) {
	switch {
	case g.odd && g.p(30):
		g.str("") // none
		return
	case g.odd && g.p(50):
		n-- // a wrong length
	}
	h := make([]byte, n)
	for i := range h {
		h[i] = byte(g.r.IntN(256))
	}
	if g.p(20) {
		clear(h) // all zeros
	}
	s := fmt.Sprintf("%x", h)
	if g.p(10) {
		s = strings.ToUpper(s)
	}
	g.str(s)
}

// anyJSON writes any JSON value (an unknown field's).
func (g *otlpGen) anyJSON(depth int) {
	switch k := g.r.IntN(6); {
	case k == 0 && depth > 0:
		g.obj("a", func() { g.anyJSON(depth - 1) }, "b", func() { g.text() })
	case k == 1 && depth > 0:
		g.arr(g.r.IntN(3), func() { g.anyJSON(depth - 1) })
	case k == 2:
		g.b.WriteString("-12.5e3")
	case k == 3:
		g.b.WriteString("null")
	default:
		g.text()
	}
}

func (g *otlpGen) value(depth int) {
	kinds := []string{"stringValue", "intValue", "boolValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue", ""}
	k := kinds[g.r.IntN(len(kinds))]
	if depth <= 0 && (k == "arrayValue" || k == "kvlistValue") {
		k = "stringValue"
	}
	var w func()
	switch k {
	case "stringValue":
		w = g.text
	case "intValue":
		w = func() {
			v := g.r.Int64N(1 << 62)
			if g.p(2) {
				v = -v
			}
			if g.p(2) {
				fmt.Fprintf(&g.b, `"%d"`, v)
			} else {
				fmt.Fprintf(&g.b, `%d`, v)
			}
		}
	case "boolValue":
		w = func() { g.b.WriteString(strconv.FormatBool(g.p(2))) }
	case "doubleValue":
		w = func() { g.b.WriteString(strconv.FormatFloat(g.r.NormFloat64()*1e3, 'g', -1, 64)) }
	case "arrayValue":
		w = func() { g.obj("values", func() { g.arr(g.r.IntN(3), func() { g.value(depth - 1) }) }) }
	case "kvlistValue":
		w = func() { g.obj("values", func() { g.attrs(depth - 1) }) }
	case "bytesValue":
		w = func() { g.str("aGVsbG8=") }
	default:
		g.obj()
		return
	}
	g.obj(k, w)
}

func (g *otlpGen) attrs(depth int) {
	g.arr(g.r.IntN(5), func() { g.obj("key", g.text, "value", func() { g.value(depth) }) })
}

func (g *otlpGen) span() {
	fields := []any{
		"traceId", func() {
			// Spans of one trace follow one another, with now and then
			// one of another trace between them.
			if g.trace != "" && !g.p(4) {
				if g.odd && g.p(10) {
					g.str(g.trace + "a") // a digit too many
					return
				}
				g.str(g.trace)
				return
			}
			st := g.b.Len()
			g.id(16)
			g.trace = strings.Trim(g.b.String()[st:], `"`)
		},
		"spanId", func() { g.id(8) },
		"parentSpanId", func() { g.id(8) },
		"name", g.text,
		"kind", func() {
			if g.odd && g.p(5) {
				g.str("SPAN_KIND_CLIENT")
			} else {
				fmt.Fprintf(&g.b, "%d", g.r.IntN(6))
			}
		},
		"startTimeUnixNano", func() { g.num(g.r.Uint64N(2e18)) },
		"endTimeUnixNano", func() { g.num(g.r.Uint64N(2e18)) },
		"attributes", func() { g.attrs(2) },
		"status", func() { g.obj("code", func() { fmt.Fprintf(&g.b, "%d", g.r.IntN(3)) }, "message", g.text) },
	}
	if g.p(3) {
		fields = append(fields, "events", func() {
			g.arr(g.r.IntN(3), func() {
				g.obj("name", g.text, "timeUnixNano", func() { g.num(g.r.Uint64N(2e18)) }, "attributes", func() { g.attrs(1) })
			})
		})
	}
	if g.p(5) {
		fields = append(fields, "flags", func() { g.num(256) }, "traceState", g.text, "droppedAttributesCount", func() { g.num(0) })
	}
	if g.odd && g.p(20) {
		fields = append(fields, "links", func() { g.arr(1, func() { g.obj("traceId", func() { g.id(16) }) }) })
	}
	g.obj(fields...)
}

func (g *otlpGen) doc() []byte {
	g.b.Reset()
	if g.p(3) {
		g.trace = "" // a trace of its own, or the last document's
	}
	g.obj("resourceSpans", func() {
		g.arr(1+g.r.IntN(2), func() {
			g.obj("resource", func() { g.obj("attributes", func() { g.attrs(1) }) },
				"scopeSpans", func() {
					g.arr(1+g.r.IntN(2), func() {
						g.obj("scope", func() { g.obj("name", g.text, "version", g.text) },
							"spans", func() { g.arr(g.r.IntN(4), g.span) })
					})
				}, "schemaUrl", g.text)
		})
	})
	return bytes.Clone(g.b.Bytes())
}

// fixtureLines are the OTLP JSON lines of the repository's example.
func fixtureLines(t testing.TB) [][]byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "project", "agentleak", "spans.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			out = append(out, bytes.Clone(l))
		}
	}
	return out
}

func TestFastOTLPMatchesPdata(t *testing.T) {
	for i, l := range fixtureLines(t) {
		if !checkFast(t, l) {
			t.Errorf("line %d of the example: the fast path left it to pdata", i+1)
		}
	}
	for _, odd := range []bool{false, true} {
		g := &otlpGen{r: rand.New(rand.NewPCG(1, 2)), odd: odd}
		fast := 0
		const n = 3000
		for range n {
			doc := g.doc()
			if checkFast(t, doc) {
				fast++
			} else if !odd {
				t.Fatalf("the fast path left a usual document to pdata:\n%s", doc)
			}
		}
		t.Logf("odd=%v: %d of %d documents read by the fast path", odd, fast, n)
		if fast < n/20 {
			t.Errorf("odd=%v: only %d of %d documents read by the fast path", odd, fast, n)
		}
	}
}

// TestFastOTLPUnquoteRoom: strings with escapes in a document longer than
// unquote's room are read by StringEnd and UnquoteTo, to the same spans.
func TestFastOTLPUnquoteRoom(t *testing.T) {
	defer func(n int) { maxUnquote = n }(maxUnquote)
	maxUnquote = 0
	c := newStrCache()
	for _, odd := range []bool{false, true} {
		g := &otlpGen{r: rand.New(rand.NewPCG(8, 9)), odd: odd}
		for range 1000 {
			doc := g.doc()
			if !checkFast(t, doc) && !odd {
				t.Fatalf("the fast path left a usual document to pdata:\n%s", doc)
			}
			fastOTLP(doc, 1, c)
		}
	}
	if cap(c.unq) > 0 {
		t.Errorf("unquote took %d bytes of room, past its %d", cap(c.unq), maxUnquote)
	}
}

// TestFastOTLPFallsBack lists what the fast path leaves to pdata, and
// that lf's decoding still reads it (or reports pdata's error).
func TestFastOTLPFallsBack(t *testing.T) {
	span := func(s string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + s + `]}]}]}`
	}
	for _, doc := range []string{
		span(`{"trace_id":"0102030405060708090a0b0c0d0e0f10","name":"x"}`),
		span(`{"name":"x","kind":"SPAN_KIND_SERVER"}`),
		span(`{"name":"x","name":"y"}`),
		span(`{"name":"x\ud800"}`),
		span("{\"name\":\"\xff\"}"),
		span("{\"name\":\"a\x01\"}"),
		span("{\"name\":\"a\\n\xff\"}"),
		span("{\"name\":\"a\\n\xe2\x82\"}"),
		span("{\"name\":\"a\\n\xe2\x82\\n\"}"),
		span(`{"traceId":"0102","name":"x"}`),
		span(`{"spanId":"01020304050607\u0030\u0038","name":"x"}`),
		span(`{"name":"x","links":[]}`),
		span(`{"name":"x","attributes":[{"key":"k","value":{"bytesValue":"aG\u0073="}}]}`),
		span(`{"name":"x","attributes":[{"key":"k","value":{"doubleValue":"1.5"}}]}`),
		span(`{"name":"x","attributes":[{"key":"k","value":{"stringValue":"a","intValue":"1"}}]}`),
		span(`{"name":"x","startTimeUnixNano":1e9}`),
		span(`{"name":"x","startTimeUnixNano":"+5"}`),
		span(`{"name":"x","startTimeUnixNano":-5}`),
		span(`{"name":"x","startTimeUnixNano":"18446744073709551616"}`),
		span(`{"name":"x","startTimeUnixNano":99999999999999999999}`),
		span(`{"name":"x","startTimeUnixNano":"12:30"}`),
		span(`{"traceId":"0102030405060708090a0b0c0d0e0f10","name":"x"},{"traceId":"0102030405060708090a0b0c0d0e0f10a","name":"y"}`),
		span(`{"traceId":"0102030405060708090a0b0c0d0e0f10","name":"x"},{"traceId":"0102030405060708090a0b0c0d0e0f10x,"name":"y"}`),
		span(`{"name":"x","kind":9}`),
		span(`{"name":"x","attributes":null}`),
		span(`{"name":"x","unknown":{"a":[1,2,{}]}}`),
		`{"resourceSpans":[]} {}`,
		`{"resource_spans":[]}`,
		`{"resourceSpans":[{"deprecatedScopeSpans":[]}]}`,
		`{"":1,"resourceSpans":[]}`,
	} {
		if _, ok := fastOTLP([]byte(doc), 1, nil); ok {
			t.Errorf("the fast path read %s", doc)
		}
		if _, ok := fastOTLP([]byte(doc), 1, newStrCache()); ok {
			t.Errorf("the fast path with a cache read %s", doc)
		}
		checkFast(t, []byte(doc))
		pd, perr := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(doc))
		got, err := decodeOTLPDoc("f", []byte(doc), 1)
		if (perr != nil) != (err != nil) {
			t.Errorf("%s: pdata says %v, lf says %v", doc, perr, err)
		}
		if err == nil && !reflect.DeepEqual(got, FromPdata(pd, 1)) {
			t.Errorf("%s: lf's spans differ from pdata's", doc)
		}
	}
}

func FuzzFastOTLP(f *testing.F) {
	for _, l := range fixtureLines(f) {
		f.Add(l)
	}
	g := &otlpGen{r: rand.New(rand.NewPCG(3, 4))}
	for i := range 40 {
		g.odd = i%2 == 1
		f.Add(g.doc())
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		fuzzcheck.Bounded(t, len(doc), func() { checkFast(t, doc) })
	})
}

// TestFastKeyBits: no two known keys of an OTLP object share a bit of
// fastDec.object's set of keys read (such a document would go to pdata).
func TestFastKeyBits(t *testing.T) {
	for name, keys := range map[string]string{
		"span":     "traceId spanId parentSpanId traceState name flags kind startTimeUnixNano endTimeUnixNano attributes droppedAttributesCount droppedEventsCount droppedLinksCount events status",
		"resource": "resource scopeSpans schemaUrl attributes droppedAttributesCount",
		"scope":    "scope spans schemaUrl name version attributes droppedAttributesCount",
		"event":    "timeUnixNano name attributes droppedAttributesCount message code key value",
	} {
		bits := map[uint]string{}
		for _, k := range strings.Fields(keys) {
			b := keyBit(k) & 63
			if o, ok := bits[b]; ok {
				t.Errorf("%s: %s and %s share bit %d", name, o, k, b)
			}
			bits[b] = k
		}
	}
}

// TestStringPairMatchesPair: a pair that stringPair reads, pair reads to
// the same key, value and end; one it leaves is left where it was.
func TestStringPairMatchesPair(t *testing.T) {
	g := &otlpGen{r: rand.New(rand.NewPCG(5, 6))}
	pairs := []string{
		`{"key":"k","value":{"stringValue":"v"}}`,
		`{"key":"","value":{"stringValue":""}}`,
		`{"key":"a\nb","value":{"stringValue":"caf\u00e9 \ud83d\ude00"}}`,
		`{"key":"k","value":{"stringValue":"\ud800"}}`,
		`{"key":"k","value":{"stringValue":"` + strings.Repeat("long text ", 20) + `"}}`,
		`{"key":"k","value":{"stringValue":"v"},"key":"k2"}`,
		`{"key":"k","value":{"stringValue":"v","intValue":"1"}}`,
		`{"key":"k","value":{"stringValue":5}}`,
		`{"key":"k","value":{"stringValue":"v"} }`,
		`{"key":"k", "value":{"stringValue":"v"}}`,
		`{"value":{"stringValue":"v"},"key":"k"}`,
		`{"key":"k","value":{"intValue":"5"}}`,
		`{"key":"k\u0000","value":{"stringValue":"\u0041"}}`,
		"{\"key\":\"k\",\"value\":{\"stringValue\":\"\xff\"}}",
		`{"key":"k","value":{"stringValue":"v"}`,
		`{"key":"k","value":{"stringValue":"v`,
		`{"key":k,"value":{"stringValue":"v"}}`,
	}
	for i := range 3000 {
		g.b.Reset()
		g.odd = g.p(2)
		if i%2 == 0 {
			// The shape stringPair reads, with the generator's texts.
			g.b.WriteString(`{"key":`)
			g.text()
			g.b.WriteString(`,"value":{"stringValue":`)
			g.text()
			g.b.WriteString(`}}`)
		} else {
			g.obj("key", g.text, "value", func() { g.value(1) })
		}
		pairs = append(pairs, g.b.String())
	}
	read := 0
	for _, p := range pairs {
		for _, depth := range []int{0, maxFastDepth - 3, maxFastDepth - 2, maxFastDepth - 1} {
			b := []byte(p + ",")
			sd := fastDec{b: b, depth: depth, c: newStrCache()}
			skv, sok := sd.stringPair()
			if !sok {
				if sd.i != 0 {
					t.Fatalf("%s at depth %d: stringPair left it at %d", p, depth, sd.i)
				}
				continue
			}
			read++
			pd := fastDec{b: b, depth: depth}
			pkv, pok := pd.pair()
			if !pok || !reflect.DeepEqual(skv, pkv) || sd.i != pd.i || sd.depth != pd.depth {
				t.Fatalf("%s at depth %d: stringPair %v %+v at %d, pair %v %+v at %d", p, depth, sok, skv, sd.i, pok, pkv, pd.i)
			}
		}
	}
	if read < len(pairs) {
		t.Errorf("stringPair read only %d of %d pairs at four depths", read, 4*len(pairs))
	}
}
