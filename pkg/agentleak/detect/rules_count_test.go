package detect

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentleak/internal/tracetest"
	"github.com/lfcli/lf/pkg/agentleak/tracefile"
)

// ruleCount is what one rule cost on a trace file: starts tried, starts
// the necessary check let through, hand matcher verdicts, and the
// expression's runs (falls through), matches and time.
type ruleCount struct {
	tries, prePass, hand1, hand0, regexp, regexpHit int
	regexpTime                                      time.Duration
}

// TestRuleCounts prints, for the trace file LF_BENCH_TRACES (the rules run on
// every event's text), how often each rule is tried and how often the trial
// falls through to the regular expression. It measures; it asserts
// nothing, and is skipped without the file. It wraps the engine's rules in
// counters (and runs each fall-through expression once more, timed) and
// puts them back afterwards.
func TestRuleCounts(t *testing.T) {
	path := os.Getenv("LF_BENCH_TRACES")
	if path == "" {
		t.Skip("LF_BENCH_TRACES names no trace file")
	}
	e := builtin()
	saved := append([]rule(nil), e.rules...)
	defer copy(e.rules, saved)
	counts := make([]ruleCount, len(e.rules))
	for i := range e.rules {
		r, c := &e.rules[i], &counts[i]
		head, pre, match := r.wordHead, r.pre, r.match
		anchored, window := r.anchored, r.window
		// The \b test moves into the wrapped check (matchAt runs it just
		// before the check, and nonASCII tests the same position again).
		r.wordHead = false
		r.pre = func(text string, p int) bool {
			c.tries++
			if head && !unicodeBound(text, p) || pre != nil && !pre(text, p) {
				return false
			}
			c.prePass++
			return true
		}
		r.match = func(text string, p int, m []int) int {
			if match != nil {
				switch got := match(text, p, m); got {
				case 1:
					c.hand1++
					return 1
				case 0:
					c.hand0++
					return 0
				}
			}
			c.regexp++
			end := len(text)
			if window > 0 && p+window < end {
				end = p + window
			}
			re := anchored.get() // compiled on first use: not timed
			t0 := time.Now()
			if re.FindStringSubmatchIndex(text[p:end]) != nil {
				c.regexpHit++
			}
			c.regexpTime += time.Since(t0)
			return -1
		}
	}
	ps := NewPatternSet(allFamilies())
	tracetest.EachText(t, path, func(_ *tracefile.Trace, s string) {
		ps.RunRules(s, func(*ReportInfo, string) {})
	})
	order := make([]int, len(counts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]].tries > counts[order[b]].tries })
	var b strings.Builder
	fmt.Fprintf(&b, "%-3s %-10s %-26s %9s %8s %7s %7s %8s %6s %9s\n", "#", "family", "data type", "tries", "pre ok", "hand 1", "hand 0", "regexp", "hits", "re ms")
	var tot ruleCount
	for _, i := range order {
		c := counts[i]
		if c.tries == 0 {
			continue
		}
		r := &saved[i]
		fmt.Fprintf(&b, "%-3d %-10s %-26s %9d %8d %7d %7d %8d %6d %9.2f\n", i, r.family, r.dt, c.tries, c.prePass, c.hand1, c.hand0, c.regexp, c.regexpHit, float64(c.regexpTime.Microseconds())/1000)
		tot.tries += c.tries
		tot.prePass += c.prePass
		tot.regexp += c.regexp
		tot.regexpHit += c.regexpHit
		tot.regexpTime += c.regexpTime
	}
	fmt.Fprintf(&b, "    %-37s %9d %8d %7s %7s %8d %6d %9.2f\n", "total", tot.tries, tot.prePass, "", "", tot.regexp, tot.regexpHit, float64(tot.regexpTime.Microseconds())/1000)
	t.Log("\n" + b.String())
}
