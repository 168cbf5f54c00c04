package kind

import (
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

type cfg struct {
	TenantID          string `json:"tenantId"`
	ElevatedThreshold int    `json:"elevatedThreshold"`
	HighThreshold     int    `json:"highThreshold"`
}

func msgs(ds diag.List) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// The list kind: entries with schema errors are skipped, the others decoded
// onto the schema's defaults and checked, the cross-entry check sees the
// decoded ones, and every problem comes back at once.
func TestParseList(t *testing.T) {
	checked := 0
	k := Kind[cfg, string]{
		Name: "t", Schema: "risk-config", List: "risk_configs",
		NotMapping: "not a mapping", Missing: "no list",
		Check: func(doc *yamlsrc.Doc, ptr string, v *cfg, c string) diag.List {
			checked++
			if c != "ctx" {
				t.Errorf("context %q", c)
			}
			if v.HighThreshold <= v.ElevatedThreshold {
				return diag.List{doc.Errorf(ptr+"/highThreshold", "not above elevated")}
			}
			return nil
		},
		CheckAll: func(doc *yamlsrc.Doc, ptrs []string, vs []cfg, _ string) diag.List {
			if len(vs) != 2 || ptrs[1] != "/risk_configs/2" {
				t.Errorf("CheckAll got %v at %v", vs, ptrs)
			}
			return nil
		},
	}
	src := "risk_configs:\n- {tenantId: a}\n- {tenantId: b, bogus: 1}\n- {tenantId: c, elevatedThreshold: 90}\n"
	res := k.Parse("f.yaml", []byte(src), "ctx")
	if checked != 2 {
		t.Errorf("checked %d entries, want 2 (the one with a schema error skipped)", checked)
	}
	if len(res.Values) != 2 || res.Values[0].HighThreshold != 80 || res.Values[0].ElevatedThreshold != 60 {
		t.Errorf("defaults not applied: %+v", res.Values)
	}
	got := msgs(res.Diags)
	for _, want := range []string{`f.yaml:3:17: /risk_configs/1/bogus: unknown field "bogus"`, "/risk_configs/2/highThreshold: not above elevated"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if v, ds := res.All(); v != nil || !ds.HasErrors() {
		t.Error("All returned values with errors")
	}
	for src, want := range map[string]string{"": "f.yaml: the file is empty: not a mapping", "[1]": "f.yaml:1:1: not a mapping", "x: 1": "f.yaml:1:1: no list"} {
		if got := msgs(k.Parse("f.yaml", []byte(src), "ctx").Diags); !strings.HasPrefix(got, want) {
			t.Errorf("%q: got %q, want %q", src, got, want)
		}
	}
}

// A kind of one value: empty documents, the list file sent instead, and a
// value nested in another document.
func TestParseOne(t *testing.T) {
	one := Kind[cfg, struct{}]{Schema: "risk-config", Empty: "empty!", FileList: "risk_configs", One: "config"}
	if _, ds := one.Parse("b", nil, struct{}{}).One(); msgs(ds) != "b:1:1: empty!\n" {
		t.Errorf("empty: %q", msgs(ds))
	}
	if _, ds := one.Parse("b", []byte("risk_configs: []"), struct{}{}).One(); !strings.Contains(msgs(ds), "/risk_configs: expected one config, not a risk_configs list") {
		t.Errorf("file for one: %q", msgs(ds))
	}
	ok := Kind[cfg, struct{}]{Schema: "risk-config", EmptyOK: true}
	if v, ds := ok.Parse("b", nil, struct{}{}).One(); ds.HasErrors() || v.HighThreshold != 80 {
		t.Errorf("EmptyOK: %+v %v", v, ds)
	}
	null := Kind[cfg, struct{}]{Schema: "risk-config"}
	if _, ds := null.Parse("b", nil, struct{}{}).One(); !strings.Contains(msgs(ds), "b: the file is empty") {
		t.Errorf("null: %q", msgs(ds))
	}
	doc, _ := yamlsrc.Parse("c.yaml", []byte("cases:\n- config: {highThreshold: 99, x: 1}\n- config: {highThreshold: 99}\n"))
	if _, ds := ok.ParseAt(doc, "/cases/0/config", struct{}{}).One(); msgs(ds) != "c.yaml:2:31: /cases/0/config/x: unknown field \"x\"\n" {
		t.Errorf("nested: %q", msgs(ds))
	}
	if v, ds := ok.ParseAt(doc, "/cases/1/config", struct{}{}).One(); ds.HasErrors() || v.HighThreshold != 99 || v.ElevatedThreshold != 60 {
		t.Errorf("nested defaults: %+v %v", v, ds)
	}
}

func TestSkip(t *testing.T) {
	err := func(p string) diag.List { return diag.List{{Pointer: p, Msg: "x"}} }
	warn := diag.List{{Pointer: "/a/0", Msg: "w", Severity: diag.SevWarning}}
	for _, c := range []struct {
		ds   diag.List
		ptr  string
		skip bool
	}{
		{err("/a/0"), "/a/0", true},
		{err("/a/0/b"), "/a/0", true},
		{err("/a"), "/a/0", true},
		{err(""), "/a/0", true},
		{err("/a/1"), "/a/0", false},
		{err("/a/01"), "/a/0", false},
		{err("/b"), "/a/0", false},
		{err("/b"), "", true},
		{warn, "/a/0", false},
	} {
		if got := Skip(c.ds, c.ptr); got != c.skip {
			t.Errorf("Skip(%v, %q) = %v", c.ds, c.ptr, got)
		}
	}
}
