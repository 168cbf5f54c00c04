package agentleak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// conformanceTraces concatenates the traces of every conformance pack and
// loads their vaults (keys do not collide across packs).
func conformanceTraces(b testing.TB) ([]byte, *Vaults, int) {
	dir := conformanceDir(b)
	var all bytes.Buffer
	var vaultDocs [][]byte
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "traces.jsonl"))
		if err != nil {
			continue
		}
		all.Write(data)
		if v, err := os.ReadFile(filepath.Join(dir, e.Name(), "vaults.yaml")); err == nil {
			vaultDocs = append(vaultDocs, v)
		}
	}
	vs := &Vaults{byKey: map[string]*Vault{}}
	for i, d := range vaultDocs {
		if ds := vs.add(fmt.Sprintf("vaults%d.yaml", i), d); ds.HasErrors() {
			b.Fatal(ds)
		}
	}
	return all.Bytes(), vs, bytes.Count(all.Bytes(), []byte(`"channel"`))
}

func benchScan(b *testing.B, data []byte, events int, sc *Scanner) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		tr := NewTraceReader("bench.jsonl", bytes.NewReader(data))
		for {
			t, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sc.Scan(t); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	// The same per CPU second of the whole process (GC included): the
	// figure that holds on a loaded machine, where wall time does not.
	if cpu > 0 {
		b.ReportMetric(float64(events)*float64(b.N)/cpu, "events/cpu-s")
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkScanConformance scans the 230 conformance traces (1,876 events,
// all detectors on, their canary vaults).
func BenchmarkScanConformance(b *testing.B) {
	data, vs, events := conformanceTraces(b)
	benchScan(b, data, events, NewScanner(nil, vs))
}

// BenchmarkScanVault10k scans synthetic traces against a vault of 10,000
// field values (every vault value matched in one pass).
func BenchmarkScanVault10k(b *testing.B) {
	vaultYAML, traces, events := SyntheticVaultSet(10000, 200, 1)
	vs, ds := ParseVaults("vaults.yaml", vaultYAML)
	if ds.HasErrors() {
		b.Fatal(ds)
	}
	benchScan(b, traces, events, NewScanner(nil, vs))
}

var (
	_ = rand.Int
	_ = strings.Repeat
)

// BenchmarkScanConformanceJSONL adds what `lf agentleak scan -o jsonl` does
// per trace: redaction and JSON encoding.
func BenchmarkScanConformanceJSONL(b *testing.B) {
	data, vs, events := conformanceTraces(b)
	sc := NewScanner(nil, vs)
	enc := json.NewEncoder(io.Discard)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		tr := NewTraceReader("bench.jsonl", bytes.NewReader(data))
		for {
			t, err := tr.Next()
			if err == io.EOF {
				break
			}
			r, err := sc.Scan(t)
			if err != nil {
				b.Fatal(err)
			}
			RedactFindings(r, false)
			if err := enc.Encode(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)*float64(b.N)/cpu, "events/cpu-s")
}

// benchVaultFile is the benchmark vault file: the shared packs'
// vaults repeated ten times under new keys (about 2,200 vaults, 500 KB).
func benchVaultFile(b testing.TB) []byte {
	dir := conformanceDir(b)
	var out bytes.Buffer
	out.WriteString("vaults:\n")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "vaults.yaml"))
	for r := 0; r < 10; r++ {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			body := strings.TrimPrefix(string(data), "vaults:\n")
			body = strings.ReplaceAll(body, "  - key: \"", fmt.Sprintf("  - key: \"r%d__", r))
			out.WriteString(body)
		}
	}
	return out.Bytes()
}

// BenchmarkLoadVaults500K reads the 500 KB vault file (the issue's
// bar: under 20 ms).
func BenchmarkLoadVaults500K(b *testing.B) {
	data := benchVaultFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		vs, ds := ParseVaults("vaults.yaml", data)
		if ds.HasErrors() || len(vs.byKey) < 2000 {
			b.Fatal(ds, len(vs.byKey))
		}
	}
	b.ReportMetric((cpuTime()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
}
