package server

import (
	"fmt"
	"math"
	"runtime/metrics"
	"strings"
	"time"
)

// Runtime statistics of a serving period, for finding where verdict tail
// latency goes (docs/serve.md, "Verdicts while events are ingested"). With
// LF_SERVE_RUNTIME_STATS=1, lf serve logs at shutdown what the Go runtime
// measured between listening and shutting down: how long runnable
// goroutines waited for a processor (/sched/latencies), the
// stop-the-world pauses of the collector, its cycles and CPU (mark assists
// separately: time a goroutine spends marking instead of its own work), and
// the bytes allocated.

// rtStatsEnv turns the shutdown log line on.
const rtStatsEnv = "LF_SERVE_RUNTIME_STATS"

var rtStatNames = []string{
	"/sched/latencies:seconds",
	"/sched/pauses/total/gc:seconds",
	"/gc/cycles/total:gc-cycles",
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/user:cpu-seconds",
	"/gc/heap/allocs:bytes",
	"/sched/gomaxprocs:threads",
}

// rtSnapshot is one reading of rtStatNames.
type rtSnapshot struct {
	at      time.Time
	samples []metrics.Sample
}

func readRuntimeStats() rtSnapshot {
	s := make([]metrics.Sample, len(rtStatNames))
	for i, n := range rtStatNames {
		s[i].Name = n
	}
	metrics.Read(s)
	return rtSnapshot{at: time.Now(), samples: s}
}

// since describes what happened between before and r in one line.
func (r rtSnapshot) since(before rtSnapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "runtime over %.1f s:", r.at.Sub(before.at).Seconds())
	for i, s := range r.samples {
		old := before.samples[i].Value
		switch s.Value.Kind() {
		case metrics.KindFloat64Histogram:
			fmt.Fprintf(&b, " %s %s;", s.Name, histSummary(s.Value.Float64Histogram(), old.Float64Histogram()))
		case metrics.KindFloat64:
			fmt.Fprintf(&b, " %s %.3f;", s.Name, s.Value.Float64()-old.Float64())
		case metrics.KindUint64:
			if strings.HasPrefix(s.Name, "/sched/gomaxprocs") {
				fmt.Fprintf(&b, " %s %d;", s.Name, s.Value.Uint64())
			} else {
				fmt.Fprintf(&b, " %s %d;", s.Name, s.Value.Uint64()-old.Uint64())
			}
		}
	}
	return strings.TrimSuffix(b.String(), ";")
}

// histSummary gives the count and the p50/p99/p99.9/max of the samples
// added to h since old (bucket upper bounds, in ms).
func histSummary(h, old *metrics.Float64Histogram) string {
	counts := make([]uint64, len(h.Counts))
	var n uint64
	for i, c := range h.Counts {
		counts[i] = c - old.Counts[i]
		n += counts[i]
	}
	if n == 0 {
		return "n=0"
	}
	at := func(q float64) string {
		want := uint64(math.Ceil(q * float64(n)))
		var seen uint64
		for i, c := range counts {
			seen += c
			if seen >= want {
				hi := h.Buckets[i+1]
				if math.IsInf(hi, 1) {
					hi = h.Buckets[i]
				}
				return fmt.Sprintf("%.3g", hi*1e3)
			}
		}
		return "?"
	}
	return fmt.Sprintf("n=%d p50 %s p99 %s p99.9 %s max %s ms", n, at(0.5), at(0.99), at(0.999), at(1))
}
