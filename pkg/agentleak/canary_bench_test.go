package agentleak

import (
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/lfcli/lf/pkg/agentleak/internal/tracetest"
)

// canaryBenchCorpus returns the event texts of the trace file named by
// LF_BENCH_TRACES whose vault (from LF_BENCH_VAULTS) has canaries, with
// those canaries, in trace order, and the texts' total size.
func canaryBenchCorpus(b *testing.B) (texts []string, vaults []*Vault, size int64) {
	path := os.Getenv("LF_BENCH_TRACES")
	if path == "" {
		b.Skip("LF_BENCH_TRACES names no trace file")
	}
	vs := benchVaults(b)
	tracetest.EachText(b, path, func(tc *Trace, s string) {
		if v := vs.lookup(tc.ScenarioID); v != nil && len(v.canaryList) > 0 {
			texts = append(texts, s)
			vaults = append(vaults, v)
			size += int64(len(s))
		}
	})
	return texts, vaults, size
}

// benchCanaries runs search over the corpus of canaryBenchCorpus, each
// text copied first into a reused buffer so that the searches find it in
// the cache, as the scan's do (it has just decoded it);
// BenchmarkCanaryCopy is the copying alone.
func benchCanaries(b *testing.B, search func(t string, c *canary) bool) {
	texts, vaults, size := canaryBenchCorpus(b)
	b.SetBytes(size)
	hits := 0
	var buf []byte
	for b.Loop() {
		for i, t := range texts {
			buf = append(buf[:0], t...)
			t := unsafe.String(unsafe.SliceData(buf), len(buf))
			cans := vaults[i].canaryList
			for id := range cans {
				if search(t, &cans[id]) {
					hits++
				}
			}
		}
	}
	_ = hits
}

// BenchmarkCanaryCopy is benchCanaries' copying of the texts alone.
func BenchmarkCanaryCopy(b *testing.B) {
	benchCanaries(b, func(t string, c *canary) bool { return false })
}

// BenchmarkCanaryContains searches the canaries with strings.Contains.
func BenchmarkCanaryContains(b *testing.B) {
	benchCanaries(b, func(t string, c *canary) bool { return strings.Contains(t, c.text) })
}

// BenchmarkCanaryHits searches each text for all its vault's canaries with
// one call, as the scan does.
func BenchmarkCanaryHits(b *testing.B) {
	texts, vaults, size := canaryBenchCorpus(b)
	b.SetBytes(size)
	var hits uint64
	var buf []byte
	for b.Loop() {
		for i, t := range texts {
			buf = append(buf[:0], t...)
			t := unsafe.String(unsafe.SliceData(buf), len(buf))
			hits += vaults[i].canaryHits(t)
		}
	}
	_ = hits
}
