package agentleak

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// plainResult is Result without its MarshalJSON: encoding/json's reflection.
type plainResult Result

func encodeBoth(t *testing.T, r *Result) {
	t.Helper()
	fast, err1 := json.Marshal(r)
	slow, err2 := json.Marshal((*plainResult)(r))
	if err1 != nil || err2 != nil || !bytes.Equal(fast, slow) {
		t.Fatalf("json.Marshal differs (%v, %v):\nfast %s\nslow %s", err1, err2, fast, slow)
	}
	var a, b bytes.Buffer
	ea, eb := json.NewEncoder(&a), json.NewEncoder(&b)
	ea.SetEscapeHTML(false)
	eb.SetEscapeHTML(false)
	if err := ea.Encode(r); err != nil {
		t.Fatal(err)
	}
	if err := eb.Encode((*plainResult)(r)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("Encoder without HTML escapes differs:\nfast %s\nslow %s", a.Bytes(), b.Bytes())
	}
	// lf agentleak scan -o jsonl writes MarshalJSON's bytes as they are.
	if raw, _ := r.MarshalJSON(); !bytes.Equal(append(raw, '\n'), b.Bytes()) {
		t.Fatalf("MarshalJSON is not compact JSON as an Encoder writes it:\nraw  %s\nslow %s", raw, b.Bytes())
	}
	// AppendJSON into a used buffer appends the same bytes.
	if got := r.AppendJSON([]byte("prev")); !bytes.Equal(got, append([]byte("prev"), bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)) {
		t.Fatalf("AppendJSON differs from MarshalJSON:\n%s", got)
	}
	ia, _ := json.MarshalIndent(r, "  ", "  ")
	ib, _ := json.MarshalIndent((*plainResult)(r), "  ", "  ")
	if !bytes.Equal(ia, ib) {
		t.Fatalf("MarshalIndent differs:\nfast %s\nslow %s", ia, ib)
	}
}

// TestResultJSONMatchesReflection: the hand-written encoder gives exactly
// encoding/json's bytes, on every result of the shared packs (values kept
// and redacted) and on results with awkward strings and numbers.
func TestResultJSONMatchesReflection(t *testing.T) {
	odd := "a<b>&c\"d\\e\u2028f\u2029g\x00h\x1f\b\f\n\r\t\x7f\xff\xfe é 中 \U0001F600"
	for _, r := range []*Result{
		{},
		{ScenarioID: odd, RunID: odd, RiskIndex: 1e-7, WSL: 1e21, RhoS: -0.0, RIByChannel: ChannelRisks{{"log", 0.5}}, Findings: []Finding{{EventID: odd, Value: odd, Redacted: odd, Confidence: 0.95}}, BlockReasons: []string{odd, ""}, Vault: &VaultStat{Key: odd, LeakShare: 123456789.125, LeaksByChannel: map[string]int{"tool_call": 2, "log": 1, odd: 3}}},
		{Findings: []Finding{}, BlockReasons: []string{}, Vault: &VaultStat{LeaksByChannel: map[string]int{}}, RiskIndex: 3.5e-9, WSL: 2.5e25},
	} {
		encodeBoth(t, r)
	}
	files, _ := filepath.Glob(filepath.Join(testfiles.SharedDir(), "conformance", "*", "*", "traces.jsonl"))
	more, _ := filepath.Glob(filepath.Join(testfiles.SharedDir(), "conformance", "*", "traces.jsonl"))
	files = append(files, more...)
	files = append(files, filepath.Join(testfiles.Root(t), "project", "agentleak", "traces.jsonl"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var vs *Vaults
		if v, err := os.ReadFile(filepath.Join(filepath.Dir(f), "vaults.yaml")); err == nil {
			vs, _ = ParseVaults("vaults.yaml", v)
		}
		sc := NewScanner(nil, vs)
		tr := NewTraceReader(f, bytes.NewReader(data))
		for {
			tc, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := sc.Scan(tc)
			if err != nil {
				t.Fatal(err)
			}
			RedactFindings(r, true)
			encodeBoth(t, r)
			RedactFindings(r, false)
			encodeBoth(t, r)
			n++
		}
	}
	t.Logf("%d scanned results encode alike", n)
}

// TestRedactASCII holds Redact's one-byte-a-character path to the rune path.
func TestRedactASCII(t *testing.T) {
	runes := func(v string) string {
		r := []rune(v)
		if len(r) <= 4 {
			return strings.Repeat("*", len(r))
		}
		return string(r[:2]) + strings.Repeat("*", len(r)-4) + string(r[len(r)-2:])
	}
	for n := 0; n < 200; n++ {
		v := strings.Repeat("ab1-", n)[:n]
		if got, want := Redact(v), runes(v); got != want {
			t.Errorf("Redact(%q) = %q, want %q", v, got, want)
		}
	}
	for _, v := range []string{"é", "jöhn.doe@example.org", "日本語テキスト", "ab\u00e9cd"} {
		if got, want := Redact(v), runes(v); got != want {
			t.Errorf("Redact(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestFindingsCopyOnlyEqualParts: a finding's first or last members are
// copied from the finding before it only when they would be written
// alike: findings that differ from the one before in one field each (0
// and -0 too) are written as encoding/json writes them.
func TestFindingsCopyOnlyEqualParts(t *testing.T) {
	base := Finding{EventID: "evt_001", Channel: "tool_call", DataType: "iban", Value: "v", Redacted: "r*", Level: 4, Severity: "high", Confidence: 0.75, Detector: "finance_detector", Tier: "regex", Leaked: true}
	vary := []func(*Finding){
		func(f *Finding) { f.EventID = "evt_002" },
		func(f *Finding) { f.Channel = "log" },
		func(f *Finding) { f.DataType = "ibam" },
		func(f *Finding) { f.Value = "" },
		func(f *Finding) { f.Redacted = "r-" },
		func(f *Finding) { f.Level = 3 },
		func(f *Finding) { f.Severity = "hig\n" },
		func(f *Finding) { f.Confidence = 0.7500001 },
		func(f *Finding) { f.Detector = "finance_detectoR" },
		func(f *Finding) { f.Tier = "regey" },
		func(f *Finding) { f.Leaked = false },
		func(f *Finding) { f.Event = 7 },
	}
	for i, v := range vary {
		f := base
		v(&f)
		encodeBoth(t, &Result{Findings: []Finding{base, f, base, base, f}})
		if i == 7 {
			z, nz := base, base
			z.Confidence, nz.Confidence = 0, math.Copysign(0, -1)
			encodeBoth(t, &Result{Findings: []Finding{z, nz, z}})
		}
	}
}
