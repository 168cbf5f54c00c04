package otelspans

import (
	"testing"

	"github.com/lfcli/lf/pkg/internal/benchspans"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// genAITrace is a trace of n GenAI spans as the server's scan benchmark
// sends them (benchspans.GenAI).
func genAITrace(n int) *Trace {
	return Group("bench", FromPdata(benchspans.GenAI(n, 1, pcommon.TraceID{1, 2, 3}), 0), "")[0]
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
