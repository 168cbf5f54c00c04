package agentleak

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
)

// TestComplianceConformance holds lf's compliance section to the engine's
// for every trace of the shared packs, with no config and with
// agentleak.init.yaml: frameworks, controls, statuses, evidence and its
// details, summary, posture, assurance, the evidence matrix and the
// integrity digest must be equal (the engine's prose is not compared).
func TestComplianceConformance(t *testing.T) {
	t.Parallel()
	dir := conformanceDir(t)
	packs := []string{filepath.Join(dir, "builtin"), filepath.Join(dir, "agentdojo_exfil"), filepath.Join(dir, "privacylens_ci"), filepath.Join(filepath.Dir(dir), "agentleak-coverage")}
	for _, pack := range packs {
		for _, name := range []string{"default", "init"} {
			path := filepath.Join(pack, "expected.compliance."+name+".jsonl.gz")
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			t.Run(filepath.Base(pack)+"/"+name, func(t *testing.T) {
				t.Parallel()    // each pack and config its own scanner and files
				var cfg *Config // default
				if name == "init" {
					cfg = initConfig(t, dir)
				}
				exp := readExpected(t, filepath.Join(pack, "expected."+name+".jsonl"))
				ok, bad, detection := compareCompliancePack(t, pack, cfg, path, exp)
				t.Logf("%d traces equal, %d differ, %d left out because lf's findings differ from the engine's", ok, bad, detection)
				if ok == 0 {
					t.Fatal("no trace compared")
				}
				// Every trace's findings are the engine's (TestConformance),
				// so every trace is compared.
				if detection > 0 || bad > 0 {
					t.Errorf("%d traces differ, %d with findings other than the engine's", bad, detection)
				}
			})
		}
	}
}

// compareCompliancePack scans a pack and compares each trace's compliance
// section with the reference line of the same run id.
// Traces whose findings differ from the engine's (exp) are counted apart:
// their compliance follows from different findings.
func compareCompliancePack(t *testing.T, pack string, cfg *Config, path string, exp map[string]expected) (ok, bad, detection int) {
	want := readComplianceExpected(t, path)
	var vs *Vaults
	if data, err := os.ReadFile(filepath.Join(pack, "vaults.yaml")); err == nil {
		v, dl := ParseVaults("vaults.yaml", data)
		if dl.HasErrors() {
			t.Fatal(dl)
		}
		vs = v
	}
	f, err := os.Open(filepath.Join(pack, "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := NewScanner(cfg, vs)
	tr := NewTraceReader("traces.jsonl", f)
	for {
		trace, err := tr.Next()
		if err != nil {
			break
		}
		res, err := sc.Scan(trace)
		if err != nil {
			t.Fatal(err)
		}
		w, found := want[res.RunID]
		if !found {
			t.Errorf("%s: no reference line", res.RunID)
			continue
		}
		if !sameFindings(res, exp[res.RunID]) {
			detection++
			continue
		}
		in := res.ComplianceInput(cfg, w.GeneratedAt)
		got := comparable(t, compliance.Evaluate(&in))
		if reflect.DeepEqual(got, w.Compliance) {
			ok++
			continue
		}
		bad++
		if bad <= 3 {
			g, _ := json.Marshal(got)
			e, _ := json.Marshal(w.Compliance)
			t.Errorf("%s: compliance differs\n got: %.1500s\nwant: %.1500s", res.RunID, g, e)
		}
	}
	return ok, bad, detection
}

// sameFindings reports whether the result has exactly the engine's
// findings (event, data type and value).
func sameFindings(res *Result, e expected) bool {
	if len(res.Findings) != len(e.Findings) {
		return false
	}
	want := map[[3]string]bool{}
	for _, f := range e.Findings {
		want[[3]string{f.EventID, f.DataType, f.Value}] = true
	}
	for _, f := range res.Findings {
		if !want[[3]string{f.EventID, f.DataType, f.Value}] {
			return false
		}
	}
	return true
}

type complianceLine struct {
	RunID       string         `json:"run_id"`
	GeneratedAt string         `json:"generated_at"`
	Compliance  map[string]any `json:"compliance"`
}

func readComplianceExpected(t *testing.T, path string) map[string]complianceLine {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]complianceLine{}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l complianceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out[l.RunID] = l
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// comparable is a report as generic JSON without lf's own prose (control
// rationales, the integrity note, the disclaimer text), which the reference
// files leave out.
func comparable(t *testing.T, r *compliance.Report) map[string]any {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, fw := range m["frameworks"].([]any) {
		for _, c := range fw.(map[string]any)["controls"].([]any) {
			delete(c.(map[string]any), "rationale")
		}
	}
	delete(m["integrity"].(map[string]any), "note")
	delete(m["disclaimer"].(map[string]any), "text")
	return m
}
