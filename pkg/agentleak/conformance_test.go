package agentleak

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// sharedDir finds ../shared next to the repository root (or $LF_SHARED).
func sharedDir(t testing.TB) string {
	if d := os.Getenv("LF_SHARED"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared")
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func conformanceDir(t testing.TB) string {
	d := filepath.Join(sharedDir(t), "conformance", "agentleak")
	if _, err := os.Stat(filepath.Join(d, "README.md")); err != nil {
		t.Skipf("AgentLeak conformance suite not found at %s (set LF_SHARED to the shared folder)", d)
	}
	return d
}

type expected struct {
	ScenarioID   string             `json:"scenario_id"`
	RunID        string             `json:"run_id"`
	RiskIndex    float64            `json:"risk_index"`
	PrivacyScore int                `json:"privacy_score"`
	Verdict      string             `json:"verdict"`
	Blocked      bool               `json:"blocked"`
	WSL          float64            `json:"wsl"`
	RhoS         float64            `json:"rho_s"`
	RIByChannel  map[string]float64 `json:"ri_by_channel"`
	Findings     []struct {
		EventID  string `json:"event_id"`
		Channel  string `json:"channel"`
		DataType string `json:"data_type"`
		Value    string `json:"value"`
		Level    int    `json:"level"`
		Tier     string `json:"tier"`
	} `json:"findings"`
}

type typeCount struct{ matched, missed, extra int }

type agreement struct {
	traces, canaryOK, verdictOK, riOK, blockedOK int
	levelDiff                                    int
	types                                        map[string]*typeCount
	diffs                                        []string
}

func readExpected(t *testing.T, path string) map[string]expected {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]expected{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e expected
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out[e.RunID] = e
	}
	return out
}

func runPack(t *testing.T, dir string, cfg *Config, exp map[string]expected) *agreement {
	var vs *Vaults
	if data, err := os.ReadFile(filepath.Join(dir, "vaults.yaml")); err == nil {
		var ds []string
		v, dl := ParseVaults("vaults.yaml", data)
		for _, d := range dl.Errors() {
			ds = append(ds, d.String())
		}
		if len(ds) > 0 {
			t.Fatalf("vaults: %s", strings.Join(ds, "\n"))
		}
		vs = v
	}
	f, err := os.Open(filepath.Join(dir, "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := NewScanner(cfg, vs)
	tr := NewTraceReader("traces.jsonl", f)
	ag := &agreement{types: map[string]*typeCount{}}
	for {
		trace, err := tr.Next()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatal(err)
		}
		res, err := sc.Scan(trace)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := exp[res.RunID]
		if !ok {
			t.Fatalf("no expected result for %s", res.RunID)
		}
		ag.traces++
		if res.Verdict == e.Verdict {
			ag.verdictOK++
		}
		if res.Blocked == e.Blocked {
			ag.blockedOK++
		}
		if math.Abs(res.RiskIndex-e.RiskIndex) <= 0.02 {
			ag.riOK++
		}
		want := map[string]bool{}
		got := map[string]bool{}
		wantLevel := map[string]int{}
		for _, x := range e.Findings {
			want[x.EventID+"\x00"+x.DataType+"\x00"+x.Value] = true
			wantLevel[x.EventID+"\x00"+x.DataType+"\x00"+x.Value] = x.Level
		}
		for _, x := range res.Findings {
			k := x.EventID + "\x00" + x.DataType + "\x00" + x.Value
			got[k] = true
			if l, ok := wantLevel[k]; ok && l != x.Level {
				ag.levelDiff++
				ag.diffs = append(ag.diffs, fmt.Sprintf("LEVEL %s %q got %d want %d", e.RunID, strings.ReplaceAll(k, "\x00", " | "), x.Level, l))
			}
		}
		canaryOK := true
		for k := range want {
			dt := strings.Split(k, "\x00")[1]
			c := ag.types[dt]
			if c == nil {
				c = &typeCount{}
				ag.types[dt] = c
			}
			if got[k] {
				c.matched++
			} else {
				c.missed++
				ag.diffs = append(ag.diffs, fmt.Sprintf("MISS %s %q", e.RunID, strings.ReplaceAll(k, "\x00", " | ")))
				if dt == "canary" {
					canaryOK = false
				}
			}
		}
		for k := range got {
			if want[k] {
				continue
			}
			dt := strings.Split(k, "\x00")[1]
			c := ag.types[dt]
			if c == nil {
				c = &typeCount{}
				ag.types[dt] = c
			}
			c.extra++
			ag.diffs = append(ag.diffs, fmt.Sprintf("EXTRA %s %q", e.RunID, strings.ReplaceAll(k, "\x00", " | ")))
			if dt == "canary" {
				canaryOK = false
			}
		}
		if canaryOK {
			ag.canaryOK++
		}
	}
	return ag
}

func pct(n, d int) float64 {
	if d == 0 {
		return 100
	}
	return 100 * float64(n) / float64(d)
}

// TestConformance runs every pack of the AgentLeak conformance suite with no
// config and with agentleak.init.yaml and compares with the reference.
func TestConformance(t *testing.T) {
	dir := conformanceDir(t)
	initCfgData, err := os.ReadFile(filepath.Join(dir, "agentleak.init.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	initCfg, _, err := ParseConfig("agentleak.init.yaml", initCfgData)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	packs := []string{}
	for _, en := range entries {
		packs = append(packs, filepath.Join(dir, en.Name()))
	}
	cov := filepath.Join(filepath.Dir(dir), "agentleak-coverage")
	if _, err := os.Stat(filepath.Join(cov, "traces.jsonl")); err == nil {
		packs = append(packs, cov)
	} else {
		t.Logf("coverage pack not found at %s: only the original packs are checked", cov)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| pack | config | traces | canary findings identical | verdict equal | risk index within 0.02 | blocked equal |\n|---|---|---|---|---|---|---|\n")
	total := &agreement{types: map[string]*typeCount{}}
	var diffs []string
	for _, pd := range packs {
		name := filepath.Base(pd)
		if _, err := os.Stat(filepath.Join(pd, "traces.jsonl")); err != nil {
			continue
		}
		for _, run := range []struct {
			name string
			cfg  *Config
			exp  string
		}{{"none", nil, "expected.default.jsonl"}, {"init", initCfg, "expected.init.jsonl"}} {
			ag := runPack(t, pd, run.cfg, readExpected(t, filepath.Join(pd, run.exp)))
			if name == "agentleak-coverage" {
				checkCoverage(t, run.name, ag)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", name, run.name, ag.traces,
				pct(ag.canaryOK, ag.traces), pct(ag.verdictOK, ag.traces), pct(ag.riOK, ag.traces), pct(ag.blockedOK, ag.traces))
			total.traces += ag.traces
			total.canaryOK += ag.canaryOK
			total.verdictOK += ag.verdictOK
			total.riOK += ag.riOK
			total.blockedOK += ag.blockedOK
			total.levelDiff += ag.levelDiff
			for k, c := range ag.types {
				tc := total.types[k]
				if tc == nil {
					tc = &typeCount{}
					total.types[k] = tc
				}
				tc.matched += c.matched
				tc.missed += c.missed
				tc.extra += c.extra
			}
			for _, d := range ag.diffs {
				diffs = append(diffs, name+"/"+run.name+" "+d)
			}
		}
	}
	fmt.Fprintf(&b, "| **all** | | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n\n", total.traces,
		pct(total.canaryOK, total.traces), pct(total.verdictOK, total.traces), pct(total.riOK, total.traces), pct(total.blockedOK, total.traces))
	fmt.Fprintf(&b, "| data type | matched | missed | extra |\n|---|---|---|---|\n")
	var types []string
	for k := range total.types {
		types = append(types, k)
	}
	sort.Strings(types)
	for _, k := range types {
		c := total.types[k]
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", k, c.matched, c.missed, c.extra)
	}
	fmt.Fprintf(&b, "\nfindings matched with a different level: %d\n", total.levelDiff)
	t.Log("\n" + b.String())
	if out := os.Getenv("LF_CONFORMANCE_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if out := os.Getenv("LF_CONFORMANCE_DIFF"); out != "" {
		sort.Strings(diffs)
		_ = os.WriteFile(out, []byte(strings.Join(diffs, "\n")+"\n"), 0o644)
	}
	if total.levelDiff > 0 {
		t.Errorf("%d findings have another level than the reference", total.levelDiff)
	}
	// Beyond the bars: lf finds exactly the engine's findings on
	// every pack today, so any missed or extra finding is a regression.
	for _, k := range types {
		if c := total.types[k]; c.missed+c.extra > 0 {
			t.Errorf("%s: %d of the engine's findings missed, %d extra (every pack agreed exactly)", k, c.missed, c.extra)
		}
	}
	if c := pct(total.canaryOK, total.traces); c < 100 {
		t.Errorf("canary agreement %.1f%%, want 100%%", c)
	}
	if v := pct(total.verdictOK, total.traces); v < 90 {
		t.Errorf("verdict agreement %.1f%%, want >= 90%%", v)
	}
	if r := pct(total.riOK, total.traces); r < 85 {
		t.Errorf("risk index agreement %.1f%%, want >= 85%%", r)
	}
}

// checkCoverage holds the coverage pack to the bar: verdict equal on
// 98% of traces, risk index within 0.02 on 95%, canary findings identical,
// 98% of the engine's findings matched with at most 2% extra.
func checkCoverage(t *testing.T, cfg string, ag *agreement) {
	var matched, missed, extra int
	for _, c := range ag.types {
		matched += c.matched
		missed += c.missed
		extra += c.extra
	}
	t.Logf("coverage/%s: findings matched %d, missed %d, extra %d", cfg, matched, missed, extra)
	if v := pct(ag.verdictOK, ag.traces); v < 98 {
		t.Errorf("coverage/%s: verdict agreement %.1f%%, want >= 98%%", cfg, v)
	}
	if r := pct(ag.riOK, ag.traces); r < 95 {
		t.Errorf("coverage/%s: risk index agreement %.1f%%, want >= 95%%", cfg, r)
	}
	if ag.canaryOK != ag.traces {
		t.Errorf("coverage/%s: canary findings differ on %d traces", cfg, ag.traces-ag.canaryOK)
	}
	if m := pct(matched, matched+missed); m < 98 {
		t.Errorf("coverage/%s: %.1f%% of the engine's findings matched, want >= 98%%", cfg, m)
	}
	if x := pct(extra, matched+missed); extra > 0 && x > 2 {
		t.Errorf("coverage/%s: %.1f%% extra findings, want <= 2%%", cfg, x)
	}
}
