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

	"github.com/lfcli/lf/pkg/agentleak/tracefile"
	"github.com/lfcli/lf/pkg/otelspans"
)

// otelConformanceDir is ../shared/conformance/agentleak-otel, or a skip.
func otelConformanceDir(t *testing.T) string {
	d := filepath.Join(sharedDir(t), "conformance", "agentleak-otel")
	if _, err := os.Stat(filepath.Join(d, "MAPPING.md")); err != nil {
		t.Skipf("AgentLeak OpenTelemetry conformance data not found at %s (set LF_SHARED to the shared folder)", d)
	}
	return d
}

// adaptedTrace is a line of adapted.jsonl: what the engine's span adapter
// made of one trace.
type adaptedTrace struct {
	ScenarioID string `json:"scenario_id"`
	RunID      string `json:"run_id"`
	Events     []struct {
		EventID string `json:"event_id"`
		Channel string `json:"channel"`
		Source  string `json:"source"`
		Target  string `json:"target"`
		Content string `json:"content"`
	} `json:"events"`
}

// fullExpected is an expected result line with every field compared.
type fullExpected struct {
	RunID         string             `json:"run_id"`
	Events        int                `json:"events"`
	RiskIndex     float64            `json:"risk_index"`
	PrivacyScore  int                `json:"privacy_score"`
	Verdict       string             `json:"verdict"`
	Blocked       bool               `json:"blocked"`
	WSL           float64            `json:"wsl"`
	RhoS          float64            `json:"rho_s"`
	LeakedSecrets int                `json:"leaked_secrets"`
	VaultSecrets  int                `json:"vault_secrets"`
	RIByChannel   map[string]float64 `json:"ri_by_channel"`
	Findings      []Finding          `json:"findings"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// otelPackTraces reads a pack's span files (spans.otlp.jsonl, or files/
// in name order), the format detected from the content.
func otelPackTraces(t *testing.T, dir string, m otelspans.Mapping) []*Trace {
	t.Helper()
	files := []string{filepath.Join(dir, "spans.otlp.jsonl")}
	if _, err := os.Stat(files[0]); err != nil {
		files, _ = filepath.Glob(filepath.Join(dir, "files", "*"))
		sort.Strings(files)
	}
	var inputs []Input
	for _, f := range files {
		inputs = append(inputs, Input{Path: f, Display: filepath.Base(f), Spans: SpanOptions{Mapping: m}})
	}
	var out []*Trace
	rawTraces(inputs, false, 1, func(rt *tracefile.RawTrace) bool {
		tr, err := rt.Decode(nil)
		if err != nil {
			t.Fatal(err)
		}
		if rt.Data != nil {
			t.Fatalf("%s: read as an AgentLeak trace, not as spans", rt.File)
		}
		out = append(out, tr)
		return true
	})
	return out
}

func otelFindingKey(f Finding) string {
	return fmt.Sprintf("%s|%s|%s|%s|%d|%s|%g|%s|%s", f.EventID, f.Channel, f.DataType, f.Value, f.Level, f.Severity, f.Confidence, f.Detector, f.Tier)
}

// compareResult lists how a scan result differs from the engine's.
func compareResult(res *Result, e fullExpected) []string {
	var d []string
	chk := func(name string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			d = append(d, fmt.Sprintf("%s: got %v, want %v", name, got, want))
		}
	}
	chk("events", res.Events, e.Events)
	chk("risk_index", res.RiskIndex, e.RiskIndex)
	chk("privacy_score", res.PrivacyScore, e.PrivacyScore)
	chk("verdict", res.Verdict, e.Verdict)
	chk("blocked", res.Blocked, e.Blocked)
	chk("wsl", res.WSL, e.WSL)
	chk("rho_s", res.RhoS, e.RhoS)
	chk("leaked_secrets", res.LeakedSecrets, e.LeakedSecrets)
	chk("vault_secrets", res.VaultSecrets, e.VaultSecrets)
	got := map[string]float64{}
	for _, c := range res.RIByChannel {
		got[c.Channel] = c.RI
	}
	if len(got) != len(e.RIByChannel) {
		d = append(d, fmt.Sprintf("ri_by_channel: got %v, want %v", got, e.RIByChannel))
	}
	for ch, v := range e.RIByChannel {
		if g, ok := got[ch]; !ok || math.Abs(g-v) > 1e-9 {
			d = append(d, fmt.Sprintf("ri_by_channel[%s]: got %v, want %v", ch, g, v))
		}
	}
	want := map[string]bool{}
	for _, f := range e.Findings {
		want[otelFindingKey(f)] = true
	}
	have := map[string]bool{}
	for _, f := range res.Findings {
		k := otelFindingKey(f)
		have[k] = true
		if !want[k] {
			d = append(d, "extra finding "+k)
		}
	}
	for k := range want {
		if !have[k] {
			d = append(d, "missed finding "+k)
		}
	}
	return d
}

// TestConformanceOTel reads the span files of the AgentLeak OpenTelemetry
// conformance data with the engine's mapping and checks, per trace, that
// the adapted events equal the engine's adapter's (adapted.jsonl) and that
// the scan equals the engine's scan with no config and with
// agentleak.init.yaml. With lf's own mapping the synthetic packs (spans in
// start order, OpenInference attributes) must give the same events too.
func TestConformanceOTel(t *testing.T) {
	dir := otelConformanceDir(t)
	initData, err := os.ReadFile(filepath.Join(sharedDir(t), "conformance", "agentleak", "agentleak.init.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	initCfg, _, err := ParseConfig("agentleak.init.yaml", initData)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	table.WriteString("| pack | traces | events | adapted events equal | results equal (none) | results equal (init) |\n|---|---|---|---|---|---|\n")
	for _, pack := range []string{"builtin", "agentdojo_exfil", "privacylens_ci", "real"} {
		pd := filepath.Join(dir, pack)
		if _, err := os.Stat(filepath.Join(pd, "adapted.jsonl")); err != nil {
			t.Errorf("%s: no adapted.jsonl", pack)
			continue
		}
		traces := otelPackTraces(t, pd, otelspans.MappingEngine)
		adapted := readJSONL[adaptedTrace](t, filepath.Join(pd, "adapted.jsonl"))
		if len(traces) != len(adapted) {
			t.Fatalf("%s: %d traces read, the engine made %d", pack, len(traces), len(adapted))
		}
		events, eventsOK := 0, 0
		for i, tr := range traces {
			a := adapted[i]
			if tr.RunID != a.RunID {
				t.Errorf("%s: trace %d: run id %s, want %s", pack, i, tr.RunID, a.RunID)
				continue
			}
			events += len(a.Events)
			if len(tr.Events) != len(a.Events) {
				t.Errorf("%s/%s: %d events, want %d", pack, a.RunID, len(tr.Events), len(a.Events))
				continue
			}
			for j, e := range a.Events {
				g := tr.Events[j]
				var content string
				_ = json.Unmarshal(g.Content, &content)
				if g.EventID != e.EventID || g.Channel != e.Channel || g.Source != e.Source || g.Target != e.Target || content != e.Content {
					t.Errorf("%s/%s: event %d: got %s %s %s->%s %q, want %s %s %s->%s %q", pack, a.RunID, j,
						g.EventID, g.Channel, g.Source, g.Target, content, e.EventID, e.Channel, e.Source, e.Target, e.Content)
					continue
				}
				eventsOK++
			}
		}
		var vs *Vaults
		if data, err := os.ReadFile(filepath.Join(pd, "vaults.yaml")); err == nil {
			v, dl := ParseVaults("vaults.yaml", data)
			if dl.HasErrors() {
				t.Fatalf("%s: vaults: %v", pack, dl.Errors())
			}
			vs = v
		}
		ok := map[string]int{}
		for _, run := range []struct {
			name string
			cfg  *Config
			exp  string
		}{{"none", nil, "expected.default.jsonl"}, {"init", initCfg, "expected.init.jsonl"}} {
			exp := readJSONL[fullExpected](t, filepath.Join(pd, run.exp))
			if len(exp) != len(traces) {
				t.Fatalf("%s/%s: %d expected lines for %d traces", pack, run.exp, len(exp), len(traces))
			}
			sc := NewScanner(run.cfg, vs)
			for i, tr := range traces {
				res, err := sc.Scan(tr)
				if err != nil {
					t.Fatal(err)
				}
				if res.RunID != exp[i].RunID {
					t.Fatalf("%s/%s: trace %d is %s, want %s", pack, run.name, i, res.RunID, exp[i].RunID)
				}
				if d := compareResult(res, exp[i]); len(d) > 0 {
					t.Errorf("%s/%s/%s:\n  %s", pack, run.name, res.RunID, strings.Join(d, "\n  "))
					continue
				}
				ok[run.name]++
			}
		}
		fmt.Fprintf(&table, "| %s | %d | %d | %d | %d | %d |\n", pack, len(traces), events, eventsOK, ok["none"], ok["init"])
		if pack != "real" {
			// lf's mapping on OpenInference spans in start order: the same events.
			lf := otelPackTraces(t, pd, otelspans.MappingLF)
			for i, tr := range lf {
				if got, want := eventsDigest(tr), eventsDigest(traces[i]); got != want {
					t.Errorf("%s/%s: lf's mapping gives other events than the engine's:\n%s\nwant\n%s", pack, tr.RunID, got, want)
				}
			}
		}
	}
	t.Log("\n" + table.String())
}

func eventsDigest(tr *Trace) string {
	var b strings.Builder
	for _, e := range tr.Events {
		fmt.Fprintf(&b, "%s %s %s->%s %s\n", e.EventID, e.Channel, e.Source, e.Target, e.Content)
	}
	return b.String()
}

// TestOTelLFMappingOnRealFiles: on the real span files of the conformance
// data, lf's mapping reads what the engine drops: the GenAI semantic
// conventions' chat span (gen_ai.input.messages, gen_ai.output.messages)
// and the Vercel AI SDK's spans give the user's request and the answer.
func TestOTelLFMappingOnRealFiles(t *testing.T) {
	dir := filepath.Join(otelConformanceDir(t), "real")
	want := map[string]string{
		"openinference-genai__otel_genai_client_span_tool_calls": "user_input:Weather in Paris?|final_output:The weather in Paris is currently rainy with a temperature of 57°F.|",
		"b3e700af9eab81e19f72f964d62a35af":                       "user_input:Write a haiku about programming.|final_output:Lines of code align,  \nLogic dances through the night—  \nDreams in data flow.|",
		"edff2fc5854be6170e8cccccec0c82cf":                       "user_input:And what is 3 + 3?|final_output:3 + 3 equals 6.|",
		"91621bbaaf1920e94ae594e91b3a99fd":                       "", // an embedding: nothing to audit
		"5b8efff798038103d269b633813fc60c":                       "", // not an LLM application
	}
	seen := 0
	for _, tr := range otelPackTraces(t, dir, otelspans.MappingLF) {
		w, ok := want[tr.RunID]
		if !ok {
			continue
		}
		seen++
		var b strings.Builder
		for _, e := range tr.Events {
			var c string
			_ = json.Unmarshal(e.Content, &c)
			b.WriteString(e.Channel + ":" + c + "|")
		}
		if b.String() != w {
			t.Errorf("%s: events %q, want %q", tr.RunID, b.String(), w)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d traces", seen, len(want))
	}
}
