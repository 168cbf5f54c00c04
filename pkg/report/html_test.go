package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/risk"
)

func fixture() *Data {
	f := func(x float64) *float64 { return &x }
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var hist []agentrisk.HistoryPoint
	for i := 0; i < 12; i++ {
		hist = append(hist, agentrisk.HistoryPoint{At: at.Add(time.Duration(i) * time.Hour), Score: 40 + 5*i})
	}
	scorers := []risk.Result{
		{Key: "privacy_agentleak", DisplayName: "Agent privacy <leaks>", Domain: "privacy", Score: f(6), Level: risk.High, Values: 10, Runs: []risk.RunRef{{EvaluationKey: "agentleak", ID: "r1"}}},
		{Key: "quality_external", Domain: "performance", Score: f(0.8), Level: risk.Low, Values: 1},
		{Key: "empty", Domain: "performance", Level: risk.NoData},
	}
	set := frameworks.Set{{Framework: frameworks.Framework{Key: "owasp-llm-2025", Name: "OWASP <Top 10>", Requirements: []frameworks.Requirement{
		{Key: "LLM01", Title: "Prompt Injection", Evidence: frameworks.Evidence{Domains: []string{"privacy"}}, MetAt: "low"},
		{Key: "LLM02", Title: "Disclosure", Evidence: frameworks.Evidence{RiskScorers: []string{"quality_external", "privacy_agentleak"}}, MetAt: "medium"},
		{Key: "LLM09", Title: "Misinformation", Evidence: frameworks.Evidence{RiskScorers: []string{"quality_external"}}, MetAt: "low"},
		{Key: "LLM10", Title: "Unbounded", Evidence: frameworks.Evidence{RiskScorers: []string{"empty"}}, MetAt: "low"},
	}}}}
	res, err := set.Evaluate("", scorers)
	if err != nil {
		panic(err)
	}
	comp := frameworks.Report{Results: res}.Sealed("2026-12-01T12:00:00+00:00")
	return &Data{
		Title: "lf risk report", GeneratedAt: at, Compliance: &comp,
		Scorers: scorers,
		Domains: []string{"performance", "privacy"},
		AgentLeak: []LeakRun{{
			EvaluationKey: "agentleak", ID: "r1", CreatedAt: "2026-12-01T12:00:00Z",
			Traces:   []LeakTrace{{Task: "finance", RiskIndex: 0.6, PrivacyScore: 40, Verdict: "High risk", Blocked: true, Leaked: 5}},
			Channels: []ChannelRI{{Channel: "log", RI: 0.24}, {Channel: "shared_memory", RI: 0.12}},
			Verdicts: []Count{{Label: "High risk", N: 1}}, Blocked: 1, Leaked: 5,
			Frameworks: []Count{{Label: "PCI-DSS v4.0", N: 1}},
		}},
		Agents: []Agent{{
			AgentRisk: agentrisk.AgentRisk{
				TenantID: "acme", AgentID: "agt_1", AgentName: "ops-bot", Score: 85, RiskTier: "high", Trend: "rising",
				Components: []agentrisk.Component{{Name: "injection", Value: 80}, {Name: "toolDrift", Value: 40}},
			},
			History: hist,
		}},
		Trends: trendsFixture(),
	}
}

// trendsFixture: a scorer with three points (one without a score), one
// with a single point, one with none; two domains; an explanation with a
// value and a value left out whose names hold markup.
func trendsFixture() Trends {
	f := func(x float64) *float64 { return &x }
	pt := func(at string, s *float64, l risk.Level) risk.Point { return risk.Point{At: at, Score: s, Level: l} }
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	return Trends{
		History: map[string][]risk.Point{
			"privacy_agentleak": {pt("2026-11-20T00:00:00Z", nil, risk.NoData), pt("2026-11-25T00:00:00Z", f(3), risk.Medium), pt("2026-12-01T00:00:00Z", f(6), risk.High)},
			"quality_external":  {pt("2026-11-22T00:00:00Z", f(0.8), risk.Low)},
		},
		DomainHistory: []DomainTrend{
			{Domain: "performance", Points: []DomainPoint{{At: t0.Add(48 * time.Hour), Level: risk.Low, Score: f(0.8)}}},
			{Domain: "privacy", Points: []DomainPoint{{At: t0, Level: risk.NoData}, {At: t0.Add(120 * time.Hour), Level: risk.Medium, Score: f(3)}, {At: t0.Add(264 * time.Hour), Level: risk.High, Score: f(6)}}},
		},
		Explanations: map[string]*risk.Explanation{
			"privacy_agentleak": {
				Key: "privacy_agentleak", Domain: "privacy", Metric: "risk_index",
				Methodology: risk.ExplainedMethod{Key: "leak", Function: "value * impact", Substituted: "value * 10", Variable: "value", Parameters: []risk.ParamValue{{Key: "impact", Configured: 10.0, Used: 10.0}}},
				Runs:        []risk.RunRef{{EvaluationKey: "agentleak", ID: "r1"}},
				Values:      []risk.ExplainedValue{{Run: risk.RunRef{EvaluationKey: "agentleak", ID: "r1"}, TaskSpecificationKey: "finance", ScorerKey: "agentleak", Metric: "risk_index", Value: 0.6, Risk: 6}},
				Excluded:    []risk.ExcludedValue{{Run: risk.RunRef{EvaluationKey: "agentleak", ID: "r1"}, TaskSpecificationKey: "<leaks>", ScorerKey: "agentleak", Metric: "risk_index", Value: 0.1, Reason: "out of scope"}},
				Aggregation: risk.Aggregation{Kind: "mean", N: 1, Sum: 6, Raw: 6, Formula: "mean = sum / n = 6 / 1 = 6"},
				Score:       f(6), Level: risk.High,
			},
		},
	}
}

func render(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSelfContained: nothing in the page can fetch: no src or href to
// anything, no script, a CSP that forbids the rest; markup in data escaped.
func TestSelfContained(t *testing.T) {
	s := string(render(t))
	for _, bad := range []string{"<script", "src=", "@import", "url(", "<link", "<leaks>", "<Top 10>"} {
		if strings.Contains(s, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	// Links only within the page: the compliance matrix to its evidence,
	// the evidence to the risk scorers.
	if m := regexp.MustCompile(`href="[^#]`).FindString(s); m != "" {
		t.Errorf("report links out of the page: %s", m)
	}
	if !strings.Contains(s, `http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`) {
		t.Error("report lacks its Content-Security-Policy")
	}
	if strings.Contains(s, "ZgotmplZ") {
		t.Error("html/template rejected a value (ZgotmplZ in output)")
	}
	if !strings.Contains(s, "Compliance, traces with controls at risk: PCI-DSS v4.0 1") {
		t.Error("report lacks the scan's compliance")
	}
	// heat map, channel bars, a sparkline and components per agent, a
	// history per scorer (3) and per domain (2)
	if n := strings.Count(s, `data-chart="`); n != 9 {
		t.Errorf("charts = %d, want 9", n)
	}
}

// chromium returns the browser's path. Absent, the test skips, except in CI
// (CI=true), where the browser test must run.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found: CI must install it (apt-get install -y chromium)")
	}
	t.Skip("chromium not found (apt-get install chromium): skipping the browser test")
	return ""
}

// startBrowser starts headless Chromium on page with args and returns at
// once; the channel gives its stdout and stderr when it has exited. The
// runs of a test overlap: each mostly waits on Chromium's start.
func startBrowser(t *testing.T, bin, page string, args ...string) <-chan chromiumRun {
	t.Helper()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir(),
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--disable-extensions", "--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0",
	}
	done := make(chan chromiumRun, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		done <- chromiumRun{stdout: out.String(), stderr: errb.String(), err: err}
	}()
	return done
}

// chromiumRun is what one run of Chromium printed, and how it ended.
type chromiumRun struct {
	stdout, stderr string
	err            error
}

// waitRun is the output of run c, failing t when Chromium failed.
func waitRun(t *testing.T, c <-chan chromiumRun) chromiumRun {
	t.Helper()
	r := <-c
	if r.err != nil {
		t.Fatalf("chromium: %v\n%s", r.err, r.stderr)
	}
	return r
}

var consoleLine = regexp.MustCompile(`(?m)^.*(CONSOLE|Refused to|Uncaught|Failed to load resource).*$`)

// TestBrowser opens the report in headless Chromium from a file URL:
// no console message (a CSP violation or a failed load shows as one; the
// control that proves this check can fail is in TestLayoutAtCommonWidths), every
// chart in the DOM with its shapes, and a screenshot kept as an artifact
// (in $LF_ARTIFACTS when set).
func TestBrowser(t *testing.T) {
	t.Parallel() // Chromium mostly waits: runs beside TestLayoutAtCommonWidths
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, render(t), 0o644); err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("LF_ARTIFACTS")
	if out == "" {
		out = dir
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(out, "report.png")
	// One run dumps the DOM and takes the screenshot. That the console
	// check can fail is checked in TestLayoutAtCommonWidths's run (a
	// control frame: the report with an inline script its CSP refuses).
	run := waitRun(t, startBrowser(t, bin, page, "--dump-dom", "--screenshot="+shot, "--window-size=1200,1600", "--hide-scrollbars"))
	dom, logs := run.stdout, run.stderr
	if m := consoleLine.FindAllString(logs, -1); len(m) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(m, "\n"))
	}
	charts := regexp.MustCompile(`<svg [^>]*data-chart="([a-z]+)"[^>]*>([\s\S]*?)</svg>`).FindAllStringSubmatch(dom, -1)
	got := map[string]int{}
	for _, c := range charts {
		got[c[1]]++
		shapes := strings.Count(c[2], "<rect") + strings.Count(c[2], "<polyline")
		if shapes == 0 {
			t.Errorf("chart %s rendered no shape", c[1])
		}
	}
	for _, want := range []string{"heatmap", "channels", "sparkline", "components", "history"} {
		if got[want] == 0 {
			t.Errorf("chart %s missing from the rendered page (got %v)", want, got)
		}
	}
	if n := strings.Count(dom, `class="cell"`); n != 2*len(Levels) {
		t.Errorf("heat map cells = %d, want %d", n, 2*len(Levels))
	}
	if !regexp.MustCompile(`<polyline [^>]*points="[0-9., ]{20,}"`).MatchString(dom) {
		t.Error("sparkline has no points")
	}
	checkMatrix(t, dom)
	st, err := os.Stat(shot)
	if err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s missing or blank (%v)", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}
