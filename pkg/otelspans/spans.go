// Package otelspans reads agent traces recorded as OpenTelemetry spans: OTLP
// JSON (one ExportTraceServiceRequest per line, or one document), OTLP
// protobuf, and OpenInference span lists (span objects with flattened
// attributes). OTLP is decoded with the OpenTelemetry project's own data
// model (go.opentelemetry.io/collector/pdata). Spans are grouped into one
// trace per trace id in document order, and mapped to AgentLeak events
// (LeakEvents, the AgentLeak engine's adapter or lf's wider mapping) and to
// agent-risk events (RiskEvents).
package otelspans

import "sort"

// KV is one attribute: its key and its value. A value is a string, bool,
// int64, float64, []any (an array), []KV (a key-value list), Bytes, or nil.
type KV struct {
	Key   string
	Value any
}

// Bytes is an OTLP bytesValue, kept as the base64 text OTLP JSON writes.
type Bytes string

// Attrs are a span's (or a resource's) attributes in document order. A key
// given twice keeps its last value, as a dict built from the list would.
type Attrs struct {
	list  []KV
	index map[string]int
}

// NewAttrs builds attributes from a list (later duplicates win).
func NewAttrs(list []KV) Attrs {
	a := Attrs{list: list}
	if len(list) > 8 {
		a.index = make(map[string]int, len(list))
		for i, kv := range list {
			a.index[kv.Key] = i
		}
	}
	return a
}

// Len is the number of attributes (duplicates counted).
func (a Attrs) Len() int { return len(a.list) }

// List is the attributes in document order.
func (a Attrs) List() []KV { return a.list }

// Get returns the value of key and whether it is there.
func (a Attrs) Get(key string) (any, bool) {
	if a.index != nil {
		i, ok := a.index[key]
		if !ok {
			return nil, false
		}
		return a.list[i].Value, true
	}
	for i := len(a.list) - 1; i >= 0; i-- {
		if a.list[i].Key == key {
			return a.list[i].Value, true
		}
	}
	return nil, false
}

// Str is the value of key as text (Python's str of the engine's value),
// "" when it is absent or null.
func (a Attrs) Str(key string) string {
	v, ok := a.Get(key)
	if !ok || v == nil {
		return ""
	}
	return PyStr(v)
}

// First is the text of the first of keys that is present and not empty.
func (a Attrs) First(keys ...string) (string, bool) {
	for _, k := range keys {
		if s := a.Str(k); s != "" {
			return s, true
		}
	}
	return "", false
}

// Prefixed returns the keys that start with prefix, sorted as strings.
func (a Attrs) Prefixed(prefix string) []string {
	var out []string
	var seen map[string]bool // made at the first key found: most spans have none
	for _, kv := range a.list {
		if len(kv.Key) >= len(prefix) && kv.Key[:len(prefix)] == prefix && !seen[kv.Key] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[kv.Key] = true
			out = append(out, kv.Key)
		}
	}
	sort.Strings(out)
	return out
}

// Span is one span, with what lf reads of it.
type Span struct {
	TraceID  string // lower-case hex (or the file's own id, verbatim)
	SpanID   string
	ParentID string
	Name     string
	Kind     string // OTLP span kind: SERVER, CLIENT, INTERNAL, PRODUCER, CONSUMER or ""
	Start    int64  // Unix nanoseconds; 0 when unknown
	End      int64
	Status   string // OK, ERROR or ""
	Attrs    Attrs
	Events   []SpanEvent
	Resource *Attrs // the resource's attributes (shared by its spans); nil for span lists
	Scope    string // instrumentation scope name
	Line     int    // line of the file the span was read from (0 for a whole document)
	TopKind  string // a span list's own span_kind field (Phoenix), not an attribute
}

// SpanEvent is one event of a span (GenAI content is sometimes carried in
// events such as gen_ai.content.prompt).
type SpanEvent struct {
	Name  string
	Time  int64
	Attrs Attrs
}

// Resource is the text of a resource attribute of the span, "" when absent.
func (s *Span) ResourceStr(key string) string {
	if s.Resource == nil {
		return ""
	}
	return s.Resource.Str(key)
}

// Trace is the spans of one trace id, in document order.
type Trace struct {
	RunID      string // the trace id in lower-case hex
	ScenarioID string // resource attribute agentleak.scenario_id, else RunID
	File       string // where it was read, for messages
	Line       int    // line of its first span (0 in a whole document)
	Spans      []*Span

	byID map[string]*Span // spans by span id, built when first needed
}

// ScenarioAttr is the resource attribute that names a trace's vault.
const ScenarioAttr = "agentleak.scenario_id"

// Group groups spans into traces by trace id: traces in order of first
// appearance, spans of a trace in document order. Spans without a trace id
// form one trace whose run id is noID.
func Group(file string, spans []*Span, noID string) []*Trace {
	var out []*Trace
	byID := map[string]*Trace{}
	for _, s := range spans {
		id := s.TraceID
		if id == "" {
			id = noID
		}
		t := byID[id]
		if t == nil {
			t = &Trace{RunID: id, File: file, Line: s.Line}
			byID[id] = t
			out = append(out, t)
		}
		if t.ScenarioID == "" {
			t.ScenarioID = s.ResourceStr(ScenarioAttr)
		}
		t.Spans = append(t.Spans, s)
	}
	for _, t := range out {
		if t.ScenarioID == "" {
			t.ScenarioID = t.RunID
		}
	}
	return out
}
