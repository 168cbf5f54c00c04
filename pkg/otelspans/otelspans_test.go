package otelspans

import (
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// spanSpec is a span a test builds: name, start offset and string
// attributes (a value starting with "int:" is an integer).
type spanSpec struct {
	name  string
	start int64
	attrs [][2]string
	trace byte // trace id's first byte (0: 1)
}

func build(res map[string]string, specs ...spanSpec) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	for k, v := range res {
		rs.Resource().Attributes().PutStr(k, v)
	}
	ss := rs.ScopeSpans().AppendEmpty()
	for i, sp := range specs {
		s := ss.Spans().AppendEmpty()
		s.SetName(sp.name)
		tid := pcommon.TraceID{max(sp.trace, 1), 2, 3}
		s.SetTraceID(tid)
		s.SetSpanID(pcommon.SpanID{byte(i + 1)})
		s.SetStartTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + sp.start))
		s.SetEndTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000 + sp.start + 10))
		for _, kv := range sp.attrs {
			if n, ok := strings.CutPrefix(kv[1], "int:"); ok {
				var i int64
				fmt.Sscan(n, &i)
				s.Attributes().PutInt(kv[0], i)
				continue
			}
			s.Attributes().PutStr(kv[0], kv[1])
		}
	}
	return td
}

func jsonOf(t *testing.T, td ptrace.Traces) []byte {
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func digest(evs []LeakEvent) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s %s %s->%s %s\n", e.EventID, e.Channel, e.Source, e.Target, e.Content)
	}
	return b.String()
}

func oneTrace(t *testing.T, data []byte, f Format) *Trace {
	t.Helper()
	ts, err := Decode("spans.json", data, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 {
		t.Fatalf("%d traces, want 1", len(ts))
	}
	return ts[0]
}

func TestGenAISemconvSpans(t *testing.T) {
	td := build(map[string]string{"service.name": "travel-agent"},
		spanSpec{name: "invoke_agent travel", start: 0, attrs: [][2]string{{"gen_ai.operation.name", "invoke_agent"}, {"gen_ai.agent.name", "travel"}}},
		spanSpec{name: "chat gpt-4o", start: 1, attrs: [][2]string{
			{"gen_ai.operation.name", "chat"},
			{"gen_ai.agent.name", "travel"},
			{"gen_ai.input.messages", `[{"role":"system","parts":[{"type":"text","content":"be nice"}]},{"role":"user","parts":[{"type":"text","content":"Book a flight for Jean Tremblay, SIN 123-456-789"}]}]`},
			{"gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"book","arguments":{"name":"Jean Tremblay","sin":"123-456-789"}}],"finish_reason":"tool_call"}]`},
		}},
		spanSpec{name: "execute_tool book", start: 2, attrs: [][2]string{
			{"gen_ai.operation.name", "execute_tool"},
			{"gen_ai.tool.name", "book"},
			{"gen_ai.agent.name", "travel"},
			{"gen_ai.tool.call.arguments", `{"name":"Jean Tremblay"}`},
			{"gen_ai.tool.call.result", `{"booking":"ok"}`},
		}},
		spanSpec{name: "chat gpt-4o", start: 3, attrs: [][2]string{
			{"gen_ai.operation.name", "chat"},
			{"gen_ai.agent.name", "travel"},
			{"gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"Booked."}],"finish_reason":"stop"}]`},
		}},
	)
	tr := oneTrace(t, jsonOf(t, td), Auto)
	want := `evt_001 user_input user->travel Book a flight for Jean Tremblay, SIN 123-456-789
evt_002 tool_call travel->book {"name":"Jean Tremblay","sin":"123-456-789"}
evt_003 tool_call travel->book {"name":"Jean Tremblay"}
evt_004 tool_response book->travel {"booking":"ok"}
evt_005 final_output travel->user Booked.
`
	if got := digest(LeakEvents(tr, MappingLF)); got != want {
		t.Errorf("lf mapping:\n%s\nwant\n%s", got, want)
	}
	// The engine reads gen_ai.operation.name as an OpenInference kind and
	// drops every one of these spans.
	if got := LeakEvents(tr, MappingEngine); len(got) != 0 {
		t.Errorf("engine mapping made %d events, want 0:\n%s", len(got), digest(got))
	}
}

func TestOpenLLMetrySpans(t *testing.T) {
	td := build(nil,
		spanSpec{name: "support.workflow", start: 0, attrs: [][2]string{{"traceloop.span.kind", "workflow"}, {"traceloop.entity.input", `{"question":"my balance?"}`}}},
		spanSpec{name: "openai.chat", start: 1, attrs: [][2]string{
			{"llm.request.type", "chat"},
			{"gen_ai.prompt.0.role", "user"},
			{"gen_ai.prompt.0.content", "my balance?"},
			{"gen_ai.completion.0.role", "assistant"},
			{"gen_ai.completion.0.tool_calls.0.name", "lookup"},
			{"gen_ai.completion.0.tool_calls.0.arguments", `{"acct":"ACC-99812"}`},
		}},
		spanSpec{name: "lookup.tool", start: 2, attrs: [][2]string{{"traceloop.span.kind", "tool"}, {"traceloop.entity.name", "lookup"}, {"traceloop.entity.input", `{"acct":"ACC-99812"}`}, {"traceloop.entity.output", `{"balance":"$1,200"}`}}},
		spanSpec{name: "openai.chat", start: 3, attrs: [][2]string{{"llm.request.type", "chat"}, {"gen_ai.completion.0.role", "assistant"}, {"gen_ai.completion.0.content", "Your balance is $1,200."}}},
	)
	tr := oneTrace(t, jsonOf(t, td), Auto)
	want := `evt_001 user_input user->support.workflow {"question":"my balance?"}
evt_002 tool_call openai.chat->lookup {"acct":"ACC-99812"}
evt_003 tool_call lookup.tool->lookup {"acct":"ACC-99812"}
evt_004 tool_response lookup->lookup.tool {"balance":"$1,200"}
evt_005 final_output openai.chat->user Your balance is $1,200.
`
	if got := digest(LeakEvents(tr, MappingLF)); got != want {
		t.Errorf("lf mapping:\n%s\nwant\n%s", got, want)
	}
	// The engine has no kind for these spans: the workflow's input is the
	// user input, its tool span's input and output (traceloop.entity.*)
	// an inter-agent message, the model turns nothing.
	want = `evt_001 user_input user->support.workflow {"question":"my balance?"}
evt_002 final_output lookup.tool->user {"balance":"$1,200"}
`
	if got := digest(LeakEvents(tr, MappingEngine)); got != want {
		t.Errorf("engine mapping:\n%s\nwant\n%s", got, want)
	}
}

// TestEngineQuirks holds the engine's adapter to the facts of MAPPING.md
// that the conformance data does not reach.
func TestEngineQuirks(t *testing.T) {
	td := build(nil,
		// root exported last (as batch exporters do): the engine loses its input
		spanSpec{name: "tool", start: 1, attrs: [][2]string{{"openinference.span.kind", "TOOL"}, {"tool.name", "search"}, {"tool.parameters", `{"type":"object"}`}, {"input.value", `{"q":"x"}`}, {"output.value", "res"}}},
		spanSpec{name: "llm", start: 2, attrs: [][2]string{{"openinference.span.kind", "LLM"}, {"input.value", "never read"}, {"llm.output_messages.0.message.contents.0.message_content.text", "multi-part"}, {"output.value", "plain output"}}},
		spanSpec{name: "emb", start: 3, attrs: [][2]string{{"openinference.span.kind", "EMBEDDING"}, {"output.value", "dropped"}}},
		spanSpec{name: "ret", start: 4, attrs: [][2]string{{"openinference.span.kind", "RETRIEVER"}, {"retrieval.documents.2.document.content", "two"}, {"retrieval.documents.10.document.content", "ten"}}},
		spanSpec{name: "count", start: 5, attrs: [][2]string{{"openinference.span.kind", "GUARDRAIL"}, {"input.value", "int:3"}}},
		spanSpec{name: "root", start: 0, attrs: [][2]string{{"openinference.span.kind", "AGENT"}, {"input.value", "the question"}, {"output.value", ""}}},
	)
	tr := oneTrace(t, jsonOf(t, td), OTLPJSON)
	want := `evt_001 tool_call tool->search {"type":"object"}
evt_002 tool_response search->tool res
evt_003 final_output llm->user plain output
evt_004 tool_response ret->ret ten

two
evt_005 log count->guardrail 3
`
	if got := digest(LeakEvents(tr, MappingEngine)); got != want {
		t.Errorf("engine mapping:\n%s\nwant\n%s", got, want)
	}
	// lf orders by start time (the root's input is the user input), reads
	// the call arguments rather than the tool's schema, and reads
	// multi-part message text.
	want = `evt_001 user_input user->root the question
evt_002 tool_call tool->search {"q":"x"}
evt_003 tool_response search->tool res
evt_004 final_output llm->user multi-part
evt_005 tool_response ret->ret ten

two
evt_006 log count->guardrail 3
`
	if got := digest(LeakEvents(tr, MappingLF)); got != want {
		t.Errorf("lf mapping:\n%s\nwant\n%s", got, want)
	}
}

func TestPyStr(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{true, "True"},
		{int64(-3), "-3"},
		{1.0, "1.0"},
		{0.5, "0.5"},
		{1e-05, "1e-05"},
		{1e16, "1e+16"},
		{123456789012345.0, "123456789012345.0"},
		{[]any{"a", int64(3), nil, false}, "['a', 3, None, False]"},
		{[]KV{{"k", "it's"}, {"n", 2.5}}, `{'k': "it's", 'n': 2.5}`},
		{"tab\there", "tab\there"},
		{[]any{"tab\there\n", "é\u00a0"}, `['tab\there\n', 'é\xa0']`},
		{Bytes("AAE="), "{'bytesValue': 'AAE='}"},
	} {
		if got := PyStr(c.v); got != c.want {
			t.Errorf("PyStr(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

func TestSniffAndFormats(t *testing.T) {
	td := build(map[string]string{ScenarioAttr: "scn"}, spanSpec{name: "a", attrs: [][2]string{{"input.value", "hi"}}})
	js := jsonOf(t, td)
	pb, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	for _, c := range []struct {
		name string
		data string
		want Format
	}{
		{"otlp json", string(js), OTLPJSON},
		{"otlp jsonl after blank line", "\n" + string(js) + "\n" + string(js), OTLPJSON},
		{"otlp proto", string(pb), OTLPProto},
		{"span list", `[{"name":"x","attributes":{"input.value":"a"}}]`, SpanList},
		{"phoenix span", `{"name":"x","context":{"trace_id":"t"},"attributes":{}}`, SpanList},
		{"attribute map", `{"openinference.span.kind":"LLM"}`, SpanList},
		{"agentleak trace", `{"run_id":"r","events":[]}`, Auto},
		{"agentleak array", `[{"run_id":"r","events":[]}]`, Auto},
		{"agent event", `{"timestamp":"2026-01-01T00:00:00Z","tenant_id":"t","agent_id":"a"}`, Auto},
		{"garbage", "hello", Auto},
	} {
		if got := Sniff([]byte(c.data)); got != c.want {
			t.Errorf("%s: Sniff = %q, want %q", c.name, got, c.want)
		}
	}
	for _, data := range [][]byte{js, pb} {
		tr := oneTrace(t, data, Auto)
		if tr.ScenarioID != "scn" || tr.RunID != "01020300000000000000000000000000" {
			t.Errorf("trace %s / %s", tr.RunID, tr.ScenarioID)
		}
	}
}

func TestGroupingAndIDs(t *testing.T) {
	td := build(nil,
		spanSpec{name: "a", trace: 5, attrs: [][2]string{{"input.value", "a"}}},
		spanSpec{name: "b", trace: 7, attrs: [][2]string{{"input.value", "b"}}},
		spanSpec{name: "c", trace: 5, attrs: [][2]string{{"output.value", "c"}}},
	)
	ts, err := Decode("x.jsonl", jsonOf(t, td), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || len(ts[0].Spans) != 2 || ts[0].Spans[1].Name != "c" || ts[1].RunID != "07020300000000000000000000000000" {
		t.Fatalf("grouping wrong: %d traces", len(ts))
	}
	if ts[0].ScenarioID != ts[0].RunID {
		t.Errorf("scenario id %q, want the run id", ts[0].ScenarioID)
	}
	// span lists: base64 ids decoded, spans without an id form one trace named after the file
	ts, err = Decode("dir/my.spans.json", []byte(`[{"name":"x","traceId":"AQIDBAUGBwgJCgsMDQ4PEA==","attributes":{}},{"name":"y","attributes":{"input.value":"q"}}]`), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if ts[0].RunID != "0102030405060708090a0b0c0d0e0f10" || ts[1].RunID != "my.spans" {
		t.Errorf("run ids %s, %s", ts[0].RunID, ts[1].RunID)
	}
}

func TestBadSpanFiles(t *testing.T) {
	for _, c := range []struct {
		data string
		f    Format
		want string
	}{
		{`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}`, OTLPJSON, "spans.json:1: not valid OTLP JSON"},
		{"{\"resourceSpans\":[]}\n{\"resourceSpans\":[", OTLPJSON, "spans.json:2: not valid JSON"},
		{"\x0a\xff\xff", OTLPProto, "spans.json: not valid OTLP protobuf"},
		{`[{"name":"x","attributes":{}`, SpanList, "spans.json:1: not valid JSON"},
		{`{"run_id":"r","events":[]}`, Auto, "spans.json:1: not a span file"},
	} {
		_, err := Decode("spans.json", []byte(c.data), c.f)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q...", c.data, err, c.want)
		}
	}
}

func TestPhoenixNestedAndSpanEvents(t *testing.T) {
	data := `[{"name":"llm","context":{"trace_id":"t1","span_id":"s1"},"span_kind":"LLM","start_time":"2026-01-01T00:00:00Z",
	  "attributes":{"llm":{"output_messages":[{"message":{"role":"assistant","content":"nested answer"}}]}}},
	 {"name":"old","context":{"trace_id":"t1","span_id":"s2"},"start_time":"2026-01-01T00:00:01Z","attributes":{"gen_ai.operation.name":"chat"},
	  "events":[{"name":"gen_ai.content.completion","attributes":{"gen_ai.completion":"from an event"}}]}]`
	tr := oneTrace(t, []byte(data), Auto)
	want := `evt_001 inter_agent_message llm->agent nested answer
evt_002 final_output old->user from an event
`
	if got := digest(LeakEvents(tr, MappingLF)); got != want {
		t.Errorf("lf mapping:\n%s\nwant\n%s", got, want)
	}
	if got := LeakEvents(tr, MappingEngine); len(got) != 0 {
		t.Errorf("engine mapping made %d events, want 0", len(got))
	}
}

func TestRiskEvents(t *testing.T) {
	td := build(map[string]string{"service.name": "svc", AttrTenant: "acme"},
		spanSpec{name: "agent", attrs: [][2]string{{"gen_ai.operation.name", "invoke_agent"}, {"gen_ai.agent.name", "Planner"}, {"session.id", "sess-9"}}},
		spanSpec{name: "read", start: 1, attrs: [][2]string{{"openinference.span.kind", "TOOL"}, {"tool.name", "fs.read"}, {"input.value", `{"path":"/srv/data.csv"}`}}},
		spanSpec{name: "llm", start: 2, attrs: [][2]string{{"openinference.span.kind", "LLM"}}},
		spanSpec{name: "resources/read", start: 3, attrs: [][2]string{{"mcp.method.name", "resources/read"}, {"mcp.resource.uri", "file:///etc/hosts"}, {"mcp.session.id", "m1"}, {"jsonrpc.request.id", "int:4"}}},
	)
	tr := oneTrace(t, jsonOf(t, td), Auto)
	// parent links: every span's parent is the first span
	for _, s := range tr.Spans[1:] {
		s.ParentID = tr.Spans[0].SpanID
	}
	evs, probs := RiskEvents(tr, "")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	var got []string
	for _, e := range evs {
		got = append(got, fmt.Sprintf("%s %s %s %s %s %s %s %s", e.Tenant, e.Agent, e.AgentName, e.Session, e.Method, e.Tool, e.Resource, e.RequestID))
	}
	want := []string{
		"acme Planner Planner sess-9 tools/call fs.read /srv/data.csv span:0200000000000000",
		"acme Planner Planner m1 resources/read  file:///etc/hosts 4",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzDecode: no input makes the readers or the mappings panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","name":"x","attributes":[{"key":"openinference.span.kind","value":{"stringValue":"LLM"}}]}]}]}]}`,
		`[{"name":"x","context":{"trace_id":"t"},"attributes":{"llm":{"output_messages":[{"message":{"content":"a"}}]}},"events":[{"attributes":{"gen_ai.completion":"b"}}]}]`,
		`{"spans":[{"name":"a","kind":99,"startTime":[1,2],"attributes":[{"key":"k","value":{"arrayValue":{"values":[{"intValue":"3"}]}}}]}]}`,
		`{"gen_ai.operation.name":"execute_tool","gen_ai.tool.call.arguments":"{\"path\":\"/x\"}","lf.injection_score":"2"}`,
		"\x0a\x02\x0a\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fm := range []Format{Auto, OTLPJSON, SpanList, OTLPProto} {
			ts, err := Decode("f.json", data, fm)
			if err != nil {
				continue
			}
			for _, tr := range ts {
				LeakEvents(tr, MappingLF)
				LeakEvents(tr, MappingEngine)
				RiskEvents(tr, "t")
			}
		}
	})
}

func TestDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	if _, err := Decode("d.json", []byte(deep), SpanList); err == nil || !strings.Contains(err.Error(), "nested more than 1000") {
		t.Errorf("deep nesting: %v", err)
	}
}

// TestVercelToolCalls: a Vercel AI SDK model span's ai.response.toolCalls
// become tool calls (args as compact JSON, else input, else the tool's
// name), and a list that is not JSON none.
func TestVercelToolCalls(t *testing.T) {
	span := func(calls string, more ...[2]string) *Trace {
		return oneTrace(t, jsonOf(t, build(nil, spanSpec{name: "ai.generateText.doGenerate", attrs: append([][2]string{
			{"ai.operationId", "ai.generateText.doGenerate"},
			{"ai.response.toolCalls", calls},
			{"ai.response.text", "done"},
		}, more...)})), OTLPJSON)
	}
	tr := span(`[{"toolName":"search","args":{ "q" : "x" }},{"toolName":"mail","input":"{\"to\":\"a\"}"},{"toolName":"noop"}]`)
	want := `evt_001 tool_call ai.generateText.doGenerate->search {"q":"x"}
evt_002 tool_call ai.generateText.doGenerate->mail {"to":"a"}
evt_003 tool_call ai.generateText.doGenerate->noop noop
evt_004 final_output ai.generateText.doGenerate->user done
`
	if got := digest(LeakEvents(tr, MappingLF)); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	bad := span(`[{"toolName":`, [2]string{"gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","name":"lookup","arguments":{"id":1}}]}]`})
	want = `evt_001 tool_call ai.generateText.doGenerate->lookup {"id":1}
evt_002 final_output ai.generateText.doGenerate->user done
`
	if got := digest(LeakEvents(bad, MappingLF)); got != want {
		t.Errorf("calls that are not JSON, after a GenAI one: got\n%swant\n%s", got, want)
	}
}
