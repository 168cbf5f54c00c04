// Package benchspans makes the GenAI spans of lf's OTLP benchmarks
// (scripts/bench-otlp.sh and the in-process benchmarks of pkg/server and
// pkg/otelspans), so that all of them measure the same spans. The load
// generator tools/otelcol-lf/otlpload, a module of its own that cannot
// import lf's internal packages, builds the same spans in its request:
// change both together.
package benchspans

import (
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// GenAI is one trace (id) of n spans that follow the GenAI semantic
// conventions: tool calls, a model turn every tenth span, and the agent's
// root span last (as batch exporters send it), about 1 KB of attributes per
// span; agent numbers the agent and its conversation.
func GenAI(n, agent int, id pcommon.TraceID) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "bench-agent")
	ss := rs.ScopeSpans().AppendEmpty()
	now := time.Now()
	filler := strings.Repeat("The customer asked about the itinerary and the booking reference; ", 12)
	root := pcommon.SpanID{byte((n - 1) >> 8), byte(n - 1), 1}
	for i := 0; i < n; i++ {
		s := ss.Spans().AppendEmpty()
		s.SetTraceID(id)
		s.SetSpanID(pcommon.SpanID{byte(i >> 8), byte(i), 1})
		s.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i) * time.Millisecond)))
		s.SetEndTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(i)*time.Millisecond + 500*time.Microsecond)))
		a := s.Attributes()
		switch {
		case i == n-1:
			s.SetName("invoke_agent planner")
			a.PutStr("gen_ai.operation.name", "invoke_agent")
			a.PutStr("gen_ai.agent.id", fmt.Sprintf("agt_%03d", agent))
			a.PutStr("gen_ai.agent.name", "Planner")
			a.PutStr("gen_ai.conversation.id", fmt.Sprintf("conv-%d", agent))
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
	return td
}
