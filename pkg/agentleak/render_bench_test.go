package agentleak

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/tracefile"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// BenchmarkRenderFile renders the results of the benchmark trace file as
// `-o jsonl` does (findings redacted, one reused line buffer); the scan
// is done once, before the timer, with the vaults of LF_BENCH_VAULTS (else
// the two shared packs' vaults) so that results carry vault summaries.
func BenchmarkRenderFile(b *testing.B) {
	results := benchResults(b)
	var buf []byte
	size := 0
	for _, r := range results {
		buf = r.AppendJSON(buf[:0])
		size += len(buf) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range results {
			buf = append(r.AppendJSON(buf[:0]), '\n')
		}
	}
}

// BenchmarkMarshalFile renders the same results as BenchmarkScanFile's
// OnResult does: MarshalJSON, a new buffer per result, and the newline
// appended to it. The command renders as BenchmarkRenderFile does.
func BenchmarkMarshalFile(b *testing.B) {
	results := benchResults(b)
	size := 0
	for _, r := range results {
		out, _ := r.MarshalJSON()
		size += len(out) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range results {
			out, _ := r.MarshalJSON()
			_ = append(out, '\n')
		}
	}
}

// benchResults scans the benchmark trace file once and redacts the
// findings, as `-o jsonl` does before it renders.
func benchResults(b *testing.B) []*Result {
	b.Helper()
	data := testfiles.BenchTraceFile(b)
	list := os.Getenv("LF_BENCH_VAULTS")
	if list == "" {
		list = "/work/shared/conformance/agentleak/agentdojo_exfil/vaults.yaml" + string(filepath.ListSeparator) + "/work/shared/conformance/agentleak/privacylens_ci/vaults.yaml"
	}
	vs := &Vaults{byKey: map[string]*Vault{}}
	for _, p := range filepath.SplitList(list) {
		v, err := os.ReadFile(p)
		if err != nil {
			b.Skip(err)
		}
		if ds := vs.add(p, v); ds.HasErrors() {
			b.Fatal(ds)
		}
	}
	sc := NewScanner(nil, vs)
	var results []*Result
	for _, l := range testfiles.Lines(data) {
		t, err := (&tracefile.RawTrace{File: "f", Line: 1, Data: l}).Decode(nil)
		if err != nil {
			b.Fatal(err)
		}
		r, err := sc.Scan(t)
		if err != nil {
			b.Fatal(err)
		}
		RedactFindings(r, false)
		results = append(results, r)
	}
	return results
}
