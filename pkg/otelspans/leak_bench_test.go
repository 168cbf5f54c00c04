package otelspans

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// genAITrace is a trace of n GenAI spans as the server's scan benchmark
// sends them (scripts/bench-otlp.sh): tool calls, a model turn every tenth
// span, the agent's root span last; about 1 KB of attributes per span.
func genAITrace(n int) *Trace {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "bench-agent")
	ss := rs.ScopeSpans().AppendEmpty()
	now := time.Now()
	filler := strings.Repeat("The customer asked about the itinerary and the booking reference; ", 12)
	root := pcommon.SpanID{byte((n - 1) >> 8), byte(n - 1), 1}
	for i := 0; i < n; i++ {
		s := ss.Spans().AppendEmpty()
		s.SetTraceID(pcommon.TraceID{1, 2, 3})
		s.SetSpanID(pcommon.SpanID{byte(i >> 8), byte(i), 1})
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i) * time.Millisecond)))
		a := s.Attributes()
		switch {
		case i == n-1:
			s.SetName("invoke_agent planner")
			a.PutStr("gen_ai.operation.name", "invoke_agent")
			a.PutStr("gen_ai.agent.id", "agt_001")
			a.PutStr("gen_ai.agent.name", "Planner")
			a.PutStr("gen_ai.conversation.id", "conv-1")
			a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"`+filler[:600]+`"}]}]`)
		case i%10 == 9:
			s.SetName("chat gpt-4o")
			s.SetParentSpanID(root)
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.request.model", "gpt-4o")
			a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+filler[:700]+`"}]}]`)
		default:
			s.SetName("execute_tool lookup")
			s.SetParentSpanID(root)
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", fmt.Sprintf("tool_%d", i%7))
			a.PutStr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", i))
			a.PutStr("gen_ai.tool.call.arguments", `{"query":"`+filler[:400]+`"}`)
			a.PutStr("gen_ai.tool.call.result", `{"result":"`+filler[:400]+`"}`)
		}
	}
	return Group("bench", FromPdata(td, 0), "")[0]
}

// BenchmarkLeakEventsGenAI is the mapping of a finished 100-span GenAI
// trace to AgentLeak events, as the server's scan workers do it (one
// buffer reused).
func BenchmarkLeakEventsGenAI(b *testing.B) {
	tr := genAITrace(100)
	var buf []LeakEvent
	b.ReportAllocs()
	for b.Loop() {
		buf = LeakEventsInto(buf, tr, MappingLF)
	}
	if len(buf) != 189 {
		b.Fatalf("%d events", len(buf))
	}
}

// BenchmarkTraceAgent is the agent of every span of that trace.
func BenchmarkTraceAgent(b *testing.B) {
	tr := genAITrace(100)
	b.ReportAllocs()
	for b.Loop() {
		tr.byID = nil
		for _, s := range tr.Spans {
			if tr.Agent(s) == "" {
				b.Fatal("no agent")
			}
		}
	}
}

// BenchmarkAgentFinder is BenchmarkTraceAgent with an AgentFinder, as the
// server's scan asks.
func BenchmarkAgentFinder(b *testing.B) {
	tr := genAITrace(100)
	b.ReportAllocs()
	for b.Loop() {
		tr.byID = nil
		f := tr.Agents()
		for _, s := range tr.Spans {
			if f.Agent(s) == "" {
				b.Fatal("no agent")
			}
		}
	}
}

// BenchmarkOutputMessages is the output of one of that trace's model
// spans (gen_ai.output.messages, 700 characters of text).
func BenchmarkOutputMessages(b *testing.B) {
	at := genAITrace(100).Spans[9].Attrs
	b.ReportAllocs()
	for b.Loop() {
		if _, text := lfOutputMessages(at); len(text) != 700 {
			b.Fatalf("%d characters", len(text))
		}
	}
}
