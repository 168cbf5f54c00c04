package otelspans

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Mapping chooses how spans become AgentLeak events.
type Mapping int

const (
	// MappingLF is lf's mapping: the engine's for OpenInference spans, plus
	// the OpenTelemetry GenAI semantic conventions, OpenLLMetry, the Vercel
	// AI SDK, content in span events, nested attributes, and spans ordered
	// by start time (docs/otel.md).
	MappingLF Mapping = iota
	// MappingEngine is exactly the AgentLeak engine's adapter
	// (agentleak.integrations.otel.trace_from_spans, 0.11.8).
	MappingEngine
)

// ParseMapping reads a --span-mapping value.
func ParseMapping(s string) (Mapping, error) {
	switch s {
	case "", "lf":
		return MappingLF, nil
	case "engine":
		return MappingEngine, nil
	}
	return MappingLF, fmt.Errorf("unknown span mapping %q; valid: lf, engine", s)
}

// LeakEvent is one AgentLeak event made from a span.
type LeakEvent struct {
	EventID  string
	Channel  string
	Source   string
	Target   string
	Content  string
	SpanKind string // the kind the span was read as
	ToolName string
	Span     *Span // the span it was made from
}

// The engine's attribute lists.
var (
	inputKeys    = []string{"input.value", "gen_ai.prompt", "traceloop.entity.input"}
	outputKeys   = []string{"output.value", "gen_ai.completion", "traceloop.entity.output"}
	toolNameKeys = []string{"tool.name", "gen_ai.tool.name", "tool_call.function.name"}
	toolArgKeys  = []string{"tool.parameters", "tool_call.function.arguments", "input.value"}
	agentKeys    = []string{"agent.name", "graph.node.name", "graph.node.id", "gen_ai.agent.name"}
	kindKeys     = []string{"openinference.span.kind", "span.kind", "gen_ai.operation.name"}

	// lf's wider lists (MappingLF).
	lfInputKeys    = []string{"input.value", "gen_ai.prompt", "traceloop.entity.input", "ai.prompt"}
	lfOutputKeys   = []string{"output.value", "gen_ai.completion", "traceloop.entity.output", "ai.response.text", "ai.response.object"}
	lfToolNameKeys = []string{"tool.name", "gen_ai.tool.name", "tool_call.function.name", "ai.toolCall.name"}
	lfToolArgKeys  = []string{"tool_call.function.arguments", "gen_ai.tool.call.arguments", "ai.toolCall.args", "input.value", "traceloop.entity.input", "tool.parameters"}
	lfToolOutKeys  = []string{"output.value", "gen_ai.tool.call.result", "ai.toolCall.result", "gen_ai.completion", "traceloop.entity.output"}
)

// LeakEvents maps a trace's spans to AgentLeak events.
func LeakEvents(t *Trace, m Mapping) []LeakEvent {
	return LeakEventsInto(nil, t, m)
}

// LeakEventsInto is LeakEvents writing the events over buf from its start
// (what buf held is lost), so that a caller mapping trace after trace, such
// as the server's scan workers, reuses one slice instead of allocating one
// per trace. The events are buf's storage when it is large enough.
func LeakEventsInto(buf []LeakEvent, t *Trace, m Mapping) []LeakEvent {
	// Most spans make one or two events (a tool span two).
	if n := 2*len(t.Spans) + 1; cap(buf) < n {
		buf = make([]LeakEvent, 0, n)
	}
	a := adapter{m: m, lastOut: -1, events: buf[:0]}
	spans := t.Spans
	if m == MappingLF {
		spans = byStart(spans)
	}
	for _, s := range spans {
		a.span(s)
	}
	if a.lastOut >= 0 {
		e := &a.events[a.lastOut]
		e.Channel = "final_output"
		e.Target = "user"
	}
	for i := range a.events {
		a.events[i].EventID = eventID(i + 1)
	}
	return a.events
}

// eventIDs are the first event ids, made once: a trace's events take
// them without allocating.
var eventIDs = func() []string {
	ids := make([]string, 1000)
	for n := range ids {
		ids[n] = formatEventID(n)
	}
	return ids
}()

// eventID is fmt.Sprintf("evt_%03d", n).
func eventID(n int) string {
	if n >= 0 && n < len(eventIDs) {
		return eventIDs[n]
	}
	return formatEventID(n)
}

// formatEventID is fmt.Sprintf("evt_%03d", n) without fmt's cost.
func formatEventID(n int) string {
	var b [24]byte
	out := append(b[:0], "evt_"...)
	if n < 100 {
		out = append(out, '0')
		if n < 10 {
			out = append(out, '0')
		}
	}
	return string(strconv.AppendInt(out, int64(n), 10))
}

// byStart orders spans by start time (stable) when every span has one.
func byStart(spans []*Span) []*Span {
	for _, s := range spans {
		if s.Start == 0 {
			return spans
		}
	}
	sorted := true
	for i := 1; i < len(spans) && sorted; i++ {
		sorted = spans[i-1].Start <= spans[i].Start
	}
	if sorted {
		return spans
	}
	out := append([]*Span(nil), spans...)
	slices.SortStableFunc(out, func(a, b *Span) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

type adapter struct {
	m       Mapping
	events  []LeakEvent
	lastOut int // index of the last model or chain output (promoted at the end)
}

func (a *adapter) add(e LeakEvent) {
	a.events = append(a.events, e)
}

// attrs is what the mapping reads of a span: its attributes, and with
// MappingLF also nested objects flattened and span event attributes.
func (a *adapter) attrs(s *Span) Attrs {
	if a.m == MappingEngine {
		return s.Attrs
	}
	return lfAttrs(s)
}

// keyLens is a set of key lengths (mod 64): a span's attributes' or a
// key list's. When a list's and a span's sets do not meet, none of the
// list's keys is among the span's attributes, and the list is not looked
// up: the agent keys are on few spans (a GenAI span names its agent on
// its agent span only), and looking each of them up through every
// attribute of every span was a good part of the mapping's cost.
type keyLens uint64

func lensOf(keys ...string) keyLens {
	var m keyLens
	for _, k := range keys {
		m |= 1 << (len(k) & 63)
	}
	return m
}

func attrLens(at Attrs) keyLens {
	var m keyLens
	for _, kv := range at.List() {
		m |= 1 << (len(kv.Key) & 63)
	}
	return m
}

var agentKeyLens = lensOf(agentKeys...)

// firstOf is at.First(keys...), lens the lengths of at's keys.
func firstOf(at Attrs, lens keyLens, keys []string) (string, bool) {
	for _, k := range keys {
		if lens&(1<<(len(k)&63)) != 0 {
			if s := at.Str(k); s != "" {
				return s, true
			}
		}
	}
	return "", false
}

func (a *adapter) span(s *Span) {
	at := a.attrs(s)
	kind := a.kind(s, at)
	lens := attrLens(at)
	agent, ok := "", false
	if lens&agentKeyLens != 0 {
		agent, ok = at.First(agentKeys...)
	}
	if !ok {
		agent = s.Name
		if agent == "" {
			agent = "agent"
		}
	}
	nameKeys := toolNameKeys
	if a.m == MappingLF {
		nameKeys = lfToolNameKeys
	}
	tool, hasTool := firstOf(at, lens, nameKeys)
	switch {
	case kind == "TOOL" || (kind == "" && hasTool):
		a.tool(s, at, lens, agent, kind, tool, hasTool)
	case kind == "RETRIEVER":
		a.retriever(s, at, agent)
	case kind == "GUARDRAIL":
		keys := append(append([]string{}, outputKeys...), inputKeys...)
		if text, ok := at.First(keys...); ok {
			a.add(LeakEvent{Channel: "log", Source: agent, Target: "guardrail", Content: text, SpanKind: kind, Span: s})
		}
	case kind == "LLM":
		a.llm(s, at, agent)
	case kind == "CHAIN" || kind == "AGENT" || kind == "":
		in, out := inputKeys, outputKeys
		if a.m == MappingLF {
			in, out = lfInputKeys, lfOutputKeys
		}
		if text, ok := at.First(in...); ok && len(a.events) == 0 {
			a.add(LeakEvent{Channel: "user_input", Source: "user", Target: agent, Content: text, SpanKind: kind, Span: s})
		}
		if text, ok := at.First(out...); ok {
			a.output(LeakEvent{Channel: "inter_agent_message", Source: agent, Target: "agent", Content: text, SpanKind: kind, Span: s})
		}
	}
}

// output adds a model or chain output: the last one becomes final_output.
func (a *adapter) output(e LeakEvent) {
	a.lastOut = len(a.events)
	a.add(e)
}

// kind is the span kind the mapping reads ("" for none).
func (a *adapter) kind(s *Span, at Attrs) string {
	if a.m == MappingEngine {
		k, _ := at.First(kindKeys...)
		return strings.ToUpper(k)
	}
	if k, ok := at.First("openinference.span.kind", "span.kind"); ok {
		return strings.ToUpper(k)
	}
	if op, ok := at.First("gen_ai.operation.name"); ok {
		return genAIKind(op)
	}
	if k, ok := at.First("traceloop.span.kind"); ok {
		switch strings.ToLower(k) {
		case "tool":
			return "TOOL"
		case "agent":
			return "AGENT"
		case "workflow", "task":
			return "CHAIN"
		}
		return strings.ToUpper(k)
	}
	if op, ok := at.First("ai.operationId"); ok {
		return vercelKind(op)
	}
	if _, ok := at.First("llm.request.type", "gen_ai.completion.0.content", "gen_ai.output.messages"); ok {
		return "LLM"
	}
	if s.TopKind != "" {
		return strings.ToUpper(s.TopKind)
	}
	return ""
}

// genAIKind maps a GenAI semantic-convention operation name to a kind.
func genAIKind(op string) string {
	switch op {
	case "execute_tool":
		return "TOOL"
	case "chat", "text_completion", "generate_content":
		return "LLM"
	case "invoke_agent", "create_agent", "invoke_workflow":
		return "AGENT"
	case "embeddings":
		return "EMBEDDING"
	}
	return strings.ToUpper(op)
}

// vercelKind maps a Vercel AI SDK ai.operationId to a kind.
func vercelKind(op string) string {
	switch {
	case op == "ai.toolCall":
		return "TOOL"
	case strings.HasSuffix(op, ".doGenerate") || strings.HasSuffix(op, ".doStream"):
		return "LLM"
	case strings.HasPrefix(op, "ai.embed"):
		return "EMBEDDING"
	case strings.HasPrefix(op, "ai."):
		return "CHAIN"
	}
	return ""
}

// tool maps a tool span; tool and ok are what span found of its tool name
// (the first of the mapping's tool name keys), not looked up again.
func (a *adapter) tool(s *Span, at Attrs, lens keyLens, agent, kind, tool string, ok bool) {
	argKeys, outKeys := toolArgKeys, outputKeys
	if a.m == MappingLF {
		argKeys, outKeys = lfToolArgKeys, lfToolOutKeys
	}
	if !ok && a.m == MappingLF {
		tool, ok = at.First("traceloop.entity.name") // OpenLLMetry names its tool spans' tool so
	}
	if !ok {
		tool = s.Name
		if tool == "" {
			tool = "tool"
		}
	}
	if args, ok := firstOf(at, lens, argKeys); ok {
		a.add(LeakEvent{Channel: "tool_call", Source: agent, Target: tool, Content: args, SpanKind: kind, ToolName: tool, Span: s})
	}
	if out, ok := firstOf(at, lens, outKeys); ok {
		a.add(LeakEvent{Channel: "tool_response", Source: tool, Target: agent, Content: out, SpanKind: kind, ToolName: tool, Span: s})
	}
}

func (a *adapter) retriever(s *Span, at Attrs, agent string) {
	var docs []string
	for _, k := range at.Prefixed("retrieval.documents.") {
		if strings.HasSuffix(k, ".document.content") {
			if t := at.Str(k); t != "" {
				docs = append(docs, t)
			}
		}
	}
	text := strings.Join(docs, "\n\n")
	if text == "" {
		text, _ = at.First(outputKeys...)
	}
	if text != "" {
		a.add(LeakEvent{Channel: "tool_response", Source: s.Name, Target: agent, Content: text, SpanKind: "RETRIEVER", Span: s})
	}
}

// indexed lists the indexes i of keys prefix.<i>.<rest>, in numeric order.
func indexed(at Attrs, prefix string) []int {
	seen := map[int]bool{}
	var out []int
	for _, k := range at.Prefixed(prefix) {
		rest := k[len(prefix):]
		dot := strings.IndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		n, err := strconv.Atoi(rest[:dot])
		if err != nil || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func (a *adapter) llm(s *Span, at Attrs, agent string) {
	lf := a.m == MappingLF
	if lf && len(a.events) == 0 {
		if text := lfUserText(at); text != "" {
			a.add(LeakEvent{Channel: "user_input", Source: "user", Target: agent, Content: text, SpanKind: "LLM", Span: s})
		}
	}
	text := ""
	for _, m := range indexed(at, "llm.output_messages.") {
		p := fmt.Sprintf("llm.output_messages.%d.message.", m)
		for _, c := range indexed(at, p+"tool_calls.") {
			q := fmt.Sprintf("%stool_calls.%d.tool_call.function.", p, c)
			name := at.Str(q + "name")
			if args, ok := at.First(q+"arguments", q+"name"); ok {
				a.add(LeakEvent{Channel: "tool_call", Source: agent, Target: nonEmpty(name, "tool"), Content: args, SpanKind: "LLM", ToolName: name, Span: s})
			}
		}
		if c := at.Str(p + "content"); c != "" {
			text = c
		} else if lf {
			if c := joinParts(at, p+"contents."); c != "" {
				text = c
			}
		}
	}
	if lf {
		calls, out := lfOutputMessages(at)
		for _, c := range calls {
			a.add(LeakEvent{Channel: "tool_call", Source: agent, Target: nonEmpty(c.name, "tool"), Content: c.args, SpanKind: "LLM", ToolName: c.name, Span: s})
		}
		if text == "" {
			text = out
		}
	}
	if text == "" {
		keys := outputKeys
		if lf {
			keys = lfOutputKeys
		}
		text, _ = at.First(keys...)
	}
	if text != "" {
		a.output(LeakEvent{Channel: "inter_agent_message", Source: agent, Target: "agent", Content: text, SpanKind: "LLM", Span: s})
	}
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// joinParts joins the text parts of an OpenInference multi-part message.
func joinParts(at Attrs, prefix string) string {
	var parts []string
	for _, k := range indexed(at, prefix) {
		if t := at.Str(fmt.Sprintf("%s%d.message_content.text", prefix, k)); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}
