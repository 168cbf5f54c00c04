package frameworks

import (
	"fmt"
	"io"
	"testing"

	"github.com/lfcli/lf/cmd/lfgen/benchgen"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/risk"
)

// BenchmarkCompliance is lf overview compliance without the store: 50
// frameworks of 40 requirements (benchgen.FrameworksYAML) over 1,000
// scored risk scorers, evaluated, sealed and written as JSON and as the
// table. The whole command: docs/performance.md.
func BenchmarkCompliance(b *testing.B) {
	size := benchgen.Full
	set := parseSet(b, benchgen.FrameworksYAML(size, 50, 40, 1))
	scored := make([]risk.Result, size.Scorers)
	levels := []risk.Level{risk.Low, risk.Medium, risk.High, risk.Critical, risk.NoData}
	for i := range scored {
		score := float64(i%50) / 10
		runs := 3
		if i%10 == 0 {
			runs = 100 // all_latest: the latest run of every key
		}
		r := risk.Result{Key: fmt.Sprintf("scorer-%04d", i), Domain: fmt.Sprintf("domain-%d", i%7), Level: levels[i%5], Score: &score}
		for j := 0; j < runs; j++ {
			r.Runs = append(r.Runs, risk.RunRef{EvaluationKey: fmt.Sprintf("eval-%03d", j), ID: "run-0009"})
		}
		scored[i] = r
	}
	if ds := set.Check(scored); ds.HasErrors() {
		b.Fatal(ds)
	}
	for _, format := range []string{"json", "table"} {
		b.Run(format, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				res, err := set.Evaluate("", scored)
				if err != nil {
					b.Fatal(err)
				}
				w, err := output.New(format, io.Discard, output.Options{})
				if err != nil {
					b.Fatal(err)
				}
				r := Report{Results: res}
				if format == "json" {
					r = r.Sealed("2026-01-01T00:00:00+00:00")
				}
				if err := w.Write(r); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
