package yamlsrc

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

const sample = `# file head
risk_scorers:
  # about the first scorer
  - key: "a"   # the key
    # about the name
    display_name: A
    config:
      impact: 4.0 # line c
      n: 3
    tags: [x, y] # tags
    description: >
      folded
      text
  # about b
  - key: b
`

func TestParseValuesAndPositions(t *testing.T) {
	doc, diags := Parse("f.yaml", []byte(sample))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if v, _ := doc.Get("/risk_scorers/0/config/impact"); v != 4.0 {
		t.Errorf("impact = %#v", v)
	}
	if v, _ := doc.Get("/risk_scorers/0/config/n"); v != int64(3) {
		t.Errorf("n = %#v", v)
	}
	if v, _ := doc.Get("/risk_scorers/0/description"); v != "folded text\n" {
		t.Errorf("description = %#v", v)
	}
	for ptr, want := range map[string][2]int{
		"/risk_scorers/0/config/impact": {8, 15},
		"/risk_scorers/0/config":        {7, 5},
		"/risk_scorers/1":               {15, 5},
		"/risk_scorers/1/nope":          {15, 5},
	} {
		l, c := doc.Pos(ptr)
		if [2]int{l, c} != want {
			t.Errorf("Pos(%s) = %d:%d, want %v", ptr, l, c, want)
		}
	}
	if got := doc.Keys("/risk_scorers/0"); !reflect.DeepEqual(got, []string{"key", "display_name", "config", "tags", "description"}) {
		t.Errorf("keys = %v", got)
	}
}

func TestParseComments(t *testing.T) {
	doc, _ := Parse("f.yaml", []byte(sample))
	got := doc.Comments("/risk_scorers/0")
	want := map[string]Comment{
		"":               {Head: []string{"about the first scorer"}},
		"/key":           {Line: "the key"},
		"/display_name":  {Head: []string{"about the name"}},
		"/config/impact": {Line: "line c"},
		"/tags":          {Line: "tags"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comments = %#v\nwant %#v", got, want)
	}
	if got := doc.Comments("/risk_scorers/1")[""].Head; !reflect.DeepEqual(got, []string{"about b"}) {
		t.Errorf("b head = %v", got)
	}
}

func TestParseErrorsAreLocated(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"syntax":    {"a: [1, 2\nb: 3\n", "f.yaml:"},
		"duplicate": {"a: 1\na: 2\n", `f.yaml:2:1: YAML syntax error: mapping key "a" already defined`},
		"tab":       {"a:\n\t- 1\n", "f.yaml:"},
		"alias":     {"a: *nope\n", "f.yaml:1:"},
		"two docs":  {"a: 1\n---\nb: 2\n", "f.yaml:3:"},
	} {
		t.Run(name, func(t *testing.T) {
			_, diags := Parse("f.yaml", []byte(tc.src))
			if len(diags) == 0 {
				t.Fatalf("no diagnostics")
			}
			if !strings.HasPrefix(diags[0].String(), tc.want) {
				t.Errorf("got %q, want prefix %q", diags[0].String(), tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range testfiles.ExampleYAML() {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(sample))
	f.Add([]byte("a: [1, {b: c}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			doc, _ := Parse("fuzz.yaml", data)
			_ = doc.Comments("")
		})
	})
}
