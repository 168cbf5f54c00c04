package detect

import (
	"os"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/internal/tracetest"
	"github.com/lfcli/lf/pkg/agentleak/tracefile"
)

// classBenchTexts returns the event texts of the trace file named by
// LF_BENCH_TRACES, or those of the shared packs when it names none, and
// their total size.
func classBenchTexts(b *testing.B) ([]string, int64) { return classBenchTextsT(b) }

func classBenchTextsT(b testing.TB) ([]string, int64) {
	var texts []string
	if path := os.Getenv("LF_BENCH_TRACES"); path != "" {
		tracetest.EachText(b, path, func(_ *tracefile.Trace, s string) { texts = append(texts, s) })
	} else {
		texts = packTexts(b)
	}
	var n int64
	for _, s := range texts {
		n += int64(len(s))
	}
	return texts, n
}

// BenchmarkFindStarts times the class pass alone (start classes and
// trigger words, all detectors on) over the benchmark's event texts.
func BenchmarkFindStarts(b *testing.B) {
	texts, n := classBenchTexts(b)
	ps := NewPatternSet(allFamilies())
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		classBenchFindStarts(ps, texts)
	}
}

// classBenchFindStarts is one pass of BenchmarkFindStarts, a function of
// its own so that callgrind can count its instructions alone
// (--toggle-collect='*classBenchFindStarts').
//
//go:noinline
func classBenchFindStarts(ps *PatternSet, texts []string) {
	for _, s := range texts {
		ps.findStarts(s)
	}
}

// BenchmarkRunRules times the whole rule tier (class pass and the rules
// tried at its starts) over the benchmark's event texts.
func BenchmarkRunRules(b *testing.B) {
	texts, n := classBenchTexts(b)
	ps := NewPatternSet(allFamilies())
	emit := func(*ReportInfo, string) {}
	// The rules' expressions compile when first used: not in the timing.
	for _, s := range texts {
		ps.RunRules(s, emit)
	}
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		classBenchRunRules(ps, texts, emit)
	}
}

// classBenchRunRules is one pass of BenchmarkRunRules (see
// classBenchFindStarts).
//
//go:noinline
func classBenchRunRules(ps *PatternSet, texts []string, emit EmitFunc) {
	for _, s := range texts {
		ps.RunRules(s, emit)
	}
}
