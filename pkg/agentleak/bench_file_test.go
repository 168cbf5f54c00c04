package agentleak

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkScanFile scans the trace file named by LF_BENCH_TRACES (with
// the vault files LF_BENCH_VAULTS, a path list) the way `lf agentleak
// scan --no-record --workers 1 -o jsonl` does: one worker, redaction and a
// JSON line per trace rendered into a reused buffer, the input read through
// one reused block (Transient). It profiles the whole scan of a large input
// (`task bench:agentleak` builds a 92 MB one).
func BenchmarkScanFile(b *testing.B) {
	path := os.Getenv("LF_BENCH_TRACES")
	if path == "" {
		b.Skip("LF_BENCH_TRACES names no trace file")
	}
	vs := benchVaults(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		job := &Job{
			Scanner: NewScanner(nil, vs), Workers: 1, Transient: true,
			Render: func(r *Result, dst []byte) []byte {
				RedactFindings(r, false)
				return append(r.AppendJSON(dst), '\n')
			},
			OnResult: func(r *Result) error {
				_, err := io.Discard.Write(r.Output)
				return err
			},
		}
		if _, err := job.Run(context.Background(), []Input{{Path: path, Display: path}}); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(st.Size())*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

// benchVaults loads the vault files of LF_BENCH_VAULTS (a path list) for
// the benchmarks and counts over LF_BENCH_TRACES.
func benchVaults(tb testing.TB) *Vaults {
	vs := &Vaults{byKey: map[string]*Vault{}}
	for _, p := range filepath.SplitList(os.Getenv("LF_BENCH_VAULTS")) {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if ds := vs.add(p, data); ds.HasErrors() {
			tb.Fatal(ds)
		}
	}
	return vs
}
