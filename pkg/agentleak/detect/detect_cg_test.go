package detect

import "testing"

// BenchmarkRulesOnePass is BenchmarkRunRules for instruction counts: run
// under callgrind with --toggle-collect='*rulesOnePass' and -benchtime 1x,
// it counts one pass over the texts. The goroutine's stack is grown first,
// so that no stack copy inside the pass (which callgrind takes for a
// return) stops the count early.
func BenchmarkRulesOnePass(b *testing.B) {
	texts, n := classBenchTexts(b)
	ps := NewPatternSet(allFamilies())
	emit := func(*ReportInfo, string) {}
	for _, s := range texts {
		ps.RunRules(s, emit)
	}
	growStack(64)
	b.SetBytes(n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rulesOnePass(ps, texts, emit)
	}
}

//go:noinline
func rulesOnePass(ps *PatternSet, texts []string, emit EmitFunc) {
	for _, s := range texts {
		ps.RunRules(s, emit)
	}
}

// growStack takes about k KB of stack.
//
//go:noinline
func growStack(k int) byte {
	var buf [1024]byte
	buf[k%1024] = byte(k)
	if k > 0 {
		return growStack(k-1) + buf[k%1024]
	}
	return buf[0]
}
