package output

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// sample is a value offering both checks and findings, as a domain adapter does.
type sample struct{}

func (sample) Checks() Suite {
	return Suite{Name: "lf overview risk-scorers", Checks: []Check{
		{Class: "privacy", Name: "privacy_leak", Level: "high", Failed: true, Message: "score 7.50 is high (--fail-on high); runs: agentleak/r1", Detail: "score 7.50, level high, 3 values\nruns: agentleak/r1", Columns: []Cell{{"score", "7.50"}, {"runs", "agentleak/r1"}}},
		{Class: "performance", Name: "quality_<&>\"|`x`", Level: "low", Message: "", Columns: []Cell{{"score", "0.80"}, {"runs", "mcqa/run-1"}}},
		{Class: "performance", Name: "quality_internal", Level: "no_data", Detail: "no value in scope", Columns: []Cell{{"score", "-"}, {"runs", "-"}}},
	}}
}

func (sample) Findings() []Finding {
	return []Finding{
		{RuleID: "agentleak/email", RuleName: "email", Description: "email address leaked", Level: "warning", Message: "email leaked on C1 in event e1: jo…om", URI: "traces/a.jsonl", Line: 3, Properties: map[string]any{"eventId": "e1", "channel": "C1"}},
		{RuleID: "agentleak/api_key", Level: "error", Message: "api_key leaked on C3", URI: "traces/b.json", Pointer: "/events/4", Properties: map[string]any{"eventId": "e5"}},
		{RuleID: "risk-scorer/privacy_leak", Level: "error", Message: "privacy_leak is high"},
	}
}

type closer interface {
	Write(any) error
	Close() error
}

func render(t *testing.T, w closer, vs ...any) []byte {
	t.Helper()
	for _, v := range vs {
		if err := w.Write(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return nil
}

// xmllint returns the path of xmllint; it skips the test where it is absent,
// except in CI (CI=true), where its absence is a failure.
func xmllint(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint not found: CI must install libxml2-utils")
		}
		t.Skip("xmllint not found (apt-get install libxml2-utils); skipping the XSD check")
	}
	return p
}

func validateXSD(t *testing.T, doc []byte) error {
	t.Helper()
	f := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(f, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint(t), "--noout", "--schema", filepath.Join("testdata", "schemas", "junit-10.xsd"), f).CombinedOutput()
	if err != nil {
		return &xsdError{string(out)}
	}
	return nil
}

type xsdError struct{ out string }

func (e *xsdError) Error() string { return e.out }

func TestJUnitValidAgainstJenkinsXSD(t *testing.T) {
	var buf bytes.Buffer
	render(t, NewJUnit(&buf), sample{}, sample{})
	if err := validateXSD(t, buf.Bytes()); err != nil {
		t.Fatalf("JUnit output does not validate:\n%s\n%s", err, buf.String())
	}
	s := buf.String()
	for _, want := range []string{`<testsuites name="lf" tests="6" failures="2" errors="0">`, `<testsuite name="lf overview risk-scorers" tests="6" failures="2"`, `<failure message="score 7.50 is high`, `quality_&lt;&amp;&gt;`} {
		if !strings.Contains(s, want) {
			t.Errorf("JUnit output lacks %q:\n%s", want, s)
		}
	}
	golden(t, "junit.golden", []byte(s))
	// The check must be able to fail: a test case without its name is invalid.
	bad := strings.Replace(s, `<testcase name="privacy_leak"`, `<testcase`, 1)
	if err := validateXSD(t, []byte(bad)); err == nil {
		t.Error("the XSD check accepted a testcase without a name")
	}
}

// sarifSchema compiles the OASIS SARIF 2.1.0 JSON Schema, kept byte for byte
// in testdata/schemas (see SOURCES.md there).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	p := filepath.Join("testdata", "schemas", "sarif-schema-2.1.0.json")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		ID    string `json:"$id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		t.Fatal(err)
	}
	if head.ID != "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json" ||
		head.Title != "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema" {
		t.Fatalf("%s is not the OASIS SARIF 2.1.0 schema: $id %q, title %q", p, head.ID, head.Title)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	s, err := c.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSARIFValidAgainstSchema(t *testing.T) {
	var buf bytes.Buffer
	render(t, NewSARIF(&buf, "test"), sample{})
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	schema := sarifSchema(t)
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("SARIF output does not validate: %v\n%s", err, buf.String())
	}
	golden(t, "sarif.golden", buf.Bytes())
	// Rules are shared by results of the same rule id.
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct{ RuleIndex int }
		}
	}
	_ = json.Unmarshal(buf.Bytes(), &log)
	if n := len(log.Runs[0].Tool.Driver.Rules); n != 3 {
		t.Errorf("rules = %d, want 3", n)
	}
	// The check must be able to fail.
	bad := map[string]any{"version": "2.1.0", "runs": []any{map[string]any{"tool": map[string]any{"driver": map[string]any{}}}}}
	if err := schema.Validate(bad); err == nil {
		t.Error("the schema accepted a driver without a name")
	}
	// Nor does it accept the output with a level SARIF does not define, a
	// region starting at line 0, or a member SARIF does not have.
	for _, c := range []struct{ from, to string }{
		{`"level": "error"`, `"level": "critical"`},
		{`"startLine": 3`, `"startLine": 0`},
		{`"ruleId": `, `"rule_id": "x", "ruleId": `}, // additionalProperties false
	} {
		if !strings.Contains(buf.String(), c.from) {
			t.Errorf("the output has no %s to spoil", c.from)
			continue
		}
		var spoiled any
		if err := json.Unmarshal([]byte(strings.Replace(buf.String(), c.from, c.to, 1)), &spoiled); err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(spoiled); err == nil {
			t.Errorf("the schema accepted the output with %s replaced by %s", c.from, c.to)
		}
	}
}

func TestSARIFEmptyIsValid(t *testing.T) {
	var buf bytes.Buffer
	render(t, NewSARIF(&buf, ""))
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if err := sarifSchema(t).Validate(doc); err != nil {
		t.Fatal(err)
	}
}

func TestMarkdownGolden(t *testing.T) {
	var buf bytes.Buffer
	md := NewMarkdown(&buf)
	md.Order = []string{"critical", "high", "medium", "low", "no_data"}
	render(t, md, sample{})
	golden(t, "markdown.golden", buf.Bytes())
	s := buf.String()
	if strings.Index(s, "privacy_leak") > strings.Index(s, "| name |") {
		t.Error("the failing scorer is not listed before the table")
	}
	// A name stays inside its code span, where markup is inert, and a pipe
	// is escaped so that it does not end the table cell.
	if !strings.Contains(s, "`quality_<&>\"\\|'x'`") {
		t.Errorf("name not kept in a code span with its pipe escaped:\n%s", s)
	}
}

func TestCIWritersRefuseOtherValues(t *testing.T) {
	for _, w := range []closer{NewJUnit(&bytes.Buffer{}), NewSARIF(&bytes.Buffer{}, ""), NewMarkdown(&bytes.Buffer{})} {
		if err := w.Write(42); err == nil {
			t.Errorf("%T accepted an int", w)
		}
	}
}
