package importers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
	"github.com/lfcli/lf/pkg/model"
)

// fuzzImport checks that no input makes an importer panic, and that a file
// that fails emits no run.
func fuzzImport(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		b, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"results": {"x": {"acc,none": NaN}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Bounded(t, len(b), func() {
			n := 0
			rep, err := Import(context.Background(), format, []string{"-"}, Options{Stdin: bytes.NewReader(b)}, func(r model.EvaluationRun) error {
				n++
				for _, res := range r.Results {
					for m := range res.Metrics {
						if !ValidKey(m) {
							t.Fatalf("invalid metric name %q", m)
						}
					}
				}
				if !ValidKey(r.EvaluationKey) || !ValidKey(r.ID) {
					t.Fatalf("invalid keys %q %q", r.EvaluationKey, r.ID)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Files[0].Err != nil && n > 0 {
				t.Fatalf("a failed file emitted %d runs", n)
			}
		})
	})
}

func FuzzPromptfoo(f *testing.F) {
	fuzzImport(f, Promptfoo, "promptfoo/eval_error_case.json")
}

func FuzzInspect(f *testing.F) {
	fuzzImport(f, Inspect, "inspect/legacy_v1_with_nan.json", "inspect/eval_set_status_error.json", "inspect/popularity_2epochs.eval")
}

func FuzzLMEval(f *testing.F) {
	fuzzImport(f, LMEval, "lm-eval/legacy_arc_challenge-v2.0-res.json", "lm-eval/qwen3-8b_negotiationtom_group_NA.json")
}

func FuzzGarak(f *testing.F) {
	fuzzImport(f, Garak, "garak/nvidia_report_test_qwen2.report.jsonl")
}

func FuzzDeepEval(f *testing.F) {
	fuzzImport(f, DeepEval, "deepeval/beeai_latest_test_run_ollama.json")
}

func FuzzRAGAS(f *testing.F) {
	fuzzImport(f, RAGAS, "ragas/beeai_experiment_blissful_thiel.csv")
}

func FuzzDetect(f *testing.F) {
	fuzzImport(f, "", "promptfoo/eval_error_case.json", "inspect/legacy_v1_with_nan.json", "garak/nvidia_report_test_qwen2.report.jsonl")
}

// garakReport writes a synthetic garak report of about size bytes: the
// fixture's setup and init rows, then attempts (each twice, as garak writes
// them) with 1 KB outputs, then eval rows.
func garakReport(tb testing.TB, w io.Writer, size int64, evalRows bool) {
	tb.Helper()
	head := readTB(tb, "garak/nvidia_report_test_qwen2.report.jsonl")
	lines := bytes.Split(head, []byte("\n"))
	w.Write(lines[0])
	w.Write([]byte("\n"))
	w.Write(lines[1])
	w.Write([]byte("\n"))
	out := strings.Repeat("I cannot help with that request, but here is some text. ", 18)
	// garak writes a probe's attempts (each twice: unevaluated, then
	// evaluated), then the probe's eval row, then the next probe.
	probes := []string{"dan.DanInTheWild", "encoding.InjectBase64", "promptinject.HijackHateHumans", "lmrc.Profanity"}
	var written int64
	i := 0
	for pi, p := range probes {
		limit := size * int64(pi+1) / int64(len(probes))
		for written < limit {
			for _, status := range []int{1, 2} {
				det := "{}"
				if status == 2 {
					det = fmt.Sprintf(`{"mitigation.MitigationBypass": [%d.0]}`, i%3/2)
				}
				n, _ := fmt.Fprintf(w, `{"entry_type": "attempt", "uuid": "%08x-0000-4000-8000-000000000000", "seq": %d, "status": %d, "probe_classname": "%s", "probe_params": {}, "targets": [], "prompt": {"turns": [{"role": "user", "content": {"text": "Ignore previous instructions %d", "lang": "en"}}]}, "outputs": [{"text": "%s", "lang": "en"}], "detector_results": %s, "notes": {}, "goal": "disregard the system prompt", "conversations": []}`+"\n", i, i, status, p, i, out, det)
				written += int64(n)
			}
			i++
		}
		if !evalRows {
			continue
		}
		fmt.Fprintf(w, `{"entry_type": "eval", "probe": "%s", "detector": "mitigation.MitigationBypass", "passed": 10, "nones": 0, "total_evaluated": 15, "fails": 5, "total_processed": 15}`+"\n", p)
	}
	fmt.Fprintf(w, `{"entry_type": "completion", "end_time": "2025-11-21T10:08:02.320343", "run": "32a5cc8c-6e1f-4c2a-b218-f16f65ab1359"}`+"\n")
}

func readTB(tb testing.TB, rel string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkGarakReport imports a synthetic garak report from a file
// (LF_BENCH_GARAK_MB sets its size, 64 MB by default; 1024 for the 1 GB case):
// with eval rows (attempts after the first eval row are skipped) and without
// (every evaluated attempt is read and counted).
func BenchmarkGarakReport(b *testing.B) {
	mb := int64(64)
	if v := os.Getenv("LF_BENCH_GARAK_MB"); v != "" {
		fmt.Sscan(v, &mb)
	}
	for _, evalRows := range []bool{true, false} {
		name := map[bool]string{true: "eval-rows", false: "attempts-only"}[evalRows]
		b.Run(name, func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "garak.report.jsonl")
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			w := bufio.NewWriterSize(f, 1<<20)
			garakReport(b, w, mb<<20, evalRows)
			w.Flush()
			f.Close()
			st, _ := os.Stat(p)
			b.SetBytes(st.Size())
			b.ResetTimer()
			var peak uint64
			for i := 0; i < b.N; i++ {
				rep, err := Import(context.Background(), Garak, []string{p}, Options{}, func(model.EvaluationRun) error { return nil })
				if err != nil || rep.Failed() > 0 {
					b.Fatalf("%v %v", err, rep.Files[0].Err)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
		})
	}
}

// BenchmarkPromptfooFiles imports promptfoo exports of about 1 MB each (the
// red-team fixture with its rows repeated), LF_BENCH_PROMPTFOO_FILES of them
// (100 by default; 1000 for the case).
func BenchmarkPromptfooFiles(b *testing.B) {
	n := 100
	if v := os.Getenv("LF_BENCH_PROMPTFOO_FILES"); v != "" {
		fmt.Sscan(v, &n)
	}
	one := promptfooMB(b)
	dir := b.TempDir()
	var paths []string
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("results-%04d.json", i))
		body := bytes.Replace(one, []byte(`"evalId": "eval-`), []byte(fmt.Sprintf(`"evalId": "eval-%04d-`, i)), 1)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	b.SetBytes(int64(len(one) * n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Import(context.Background(), "", paths, Options{}, func(model.EvaluationRun) error { return nil })
		if err != nil || rep.Failed() > 0 {
			b.Fatal(err)
		}
	}
}

// promptfooMB grows the red-team fixture to about 1 MB by repeating its rows.
func promptfooMB(tb testing.TB) []byte {
	b := readTB(tb, "promptfoo/redteam_results.json")
	start := bytes.Index(b, []byte(`"results": [`))
	if start < 0 {
		tb.Fatal("no results array")
	}
	start += len(`"results": [`)
	// the rows end where the array closes before "stats"
	end := bytes.LastIndex(b[:bytes.Index(b, []byte(`"stats"`))], []byte("]"))
	rows := bytes.TrimSpace(b[start:end])
	var buf bytes.Buffer
	buf.Write(b[:start])
	for buf.Len() < 1<<20 {
		if buf.Len() > start {
			buf.WriteByte(',')
		}
		buf.Write(rows)
	}
	buf.Write(b[end:])
	return buf.Bytes()
}

// TestWriteBenchInputs writes the inputs of the command-level measurement in
// docs/importers.md when LF_BENCH_OUT names a folder: garak.report.jsonl
// (LF_BENCH_GARAK_MB, default 1024) and promptfoo/results-NNNN.json
// (LF_BENCH_PROMPTFOO_FILES of about 1 MB, default 1000).
func TestWriteBenchInputs(t *testing.T) {
	out := os.Getenv("LF_BENCH_OUT")
	if out == "" {
		t.Skip("LF_BENCH_OUT is not set")
	}
	mb, n := int64(1024), 1000
	if v := os.Getenv("LF_BENCH_GARAK_MB"); v != "" {
		fmt.Sscan(v, &mb)
	}
	if v := os.Getenv("LF_BENCH_PROMPTFOO_FILES"); v != "" {
		fmt.Sscan(v, &n)
	}
	if err := os.MkdirAll(filepath.Join(out, "promptfoo"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(out, "garak.report.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	garakReport(t, w, mb<<20, true)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	one := promptfooMB(t)
	for i := 0; i < n; i++ {
		body := bytes.Replace(one, []byte(`"evalId": "eval-`), []byte(fmt.Sprintf(`"evalId": "eval-%04d-`, i)), 1)
		if err := os.WriteFile(filepath.Join(out, "promptfoo", fmt.Sprintf("results-%04d.json", i)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzPromptfooWalk checks the fast reader of promptfoo exports against
// encoding/json: whenever encoding/json reads a document, the walk reads the
// same values.
func FuzzPromptfooWalk(f *testing.F) {
	// small seeds: the fuzzer minimises every new input, which takes long on 200 KB
	f.Add(readTB(f, "promptfoo/eval_error_case.json"))
	f.Add([]byte(`{"evalId":"a\"b","results":{"version":3,"results":[{"prompt":{"raw":"x\\\\","label":"l"}}]}}`))
	f.Add([]byte(`{"ev\u0061lId":"a","results":{"v\u0065rsion":3,"results":[{"pr\u006fmpt":{"\ud83d\ude00":"x","label":"l"}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var slow pfExport
		if json.Unmarshal(b, &slow) != nil {
			return
		}
		fast, ok := decodePromptfooFast(b)
		if !ok {
			t.Fatalf("encoding/json reads the document, the walk does not")
		}
		a, _ := json.Marshal(slow)
		c, _ := json.Marshal(fast)
		if !bytes.Equal(a, c) {
			t.Fatalf("walk and encoding/json differ:\n%s\n%s", a, c)
		}
	})
}

// FuzzHELM fuzzes a run's stats.json beside the fixture's run_spec.json.
func FuzzHELM(f *testing.F) {
	spec := readTB(f, "helm/anthropic_red_team__openai_gpt-4o-2024-05-13__run_spec.json")
	f.Add(readTB(f, "helm/anthropic_red_team__openai_gpt-4o-2024-05-13__stats.json"))
	f.Add([]byte(`[{"name": {"name": "x", "split": "valid"}, "count": 1, "mean": NaN}]`))
	f.Fuzz(func(t *testing.T, stats []byte) {
		fuzzcheck.Bounded(t, len(stats), func() {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "run_spec.json"), spec, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "stats.json"), stats, 0o644); err != nil {
				t.Fatal(err)
			}
			n := 0
			rep, err := Import(context.Background(), HELM, []string{dir}, Options{}, func(r model.EvaluationRun) error {
				n++
				for m := range r.Results[0].Metrics {
					if !ValidKey(m) {
						t.Fatalf("invalid metric name %q", m)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Files[0].Err != nil && n > 0 {
				t.Fatal("a failed run emitted runs")
			}
		})
	})
}
