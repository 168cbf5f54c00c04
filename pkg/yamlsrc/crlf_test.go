package yamlsrc

import (
	"reflect"
	"strings"
	"testing"
)

// crlfSample holds every scalar style whose value depends on line breaks:
// quoted and plain multi-line scalars fold a break into a space (an empty
// line into a newline), literal blocks keep breaks as "\n", folded blocks
// fold them; comments and positions do not depend on the line ending.
const crlfSample = `# head comment
items:
  - double: "first
      second

      third"
    single: 'one
      two'
    plain: alpha
      beta
    literal: |
      l1
      l2
    folded: >
      f1
      f2

      f3
    escaped: "a\
      b"
    flow: {k: "x
      y", n: 2}
    list: [1, "p
      q"]
  - key: last # line comment
`

// TestCRLFAndLFGiveTheSameValues: a file saved with Windows line endings
// (or old Mac ones, a lone CR) gives the same values, positions and comments
// as the same file with LF.
func TestCRLFAndLFGiveTheSameValues(t *testing.T) {
	lf, diags := Parse("lf.yaml", []byte(crlfSample))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if v, _ := lf.Get("/items/0/double"); v != "first second\nthird" {
		t.Fatalf("LF double = %q", v)
	}
	for name, text := range map[string]string{
		"crlf": strings.ReplaceAll(crlfSample, "\n", "\r\n"),
		"cr":   strings.ReplaceAll(crlfSample, "\n", "\r"),
	} {
		for _, fast := range []bool{true, false} {
			doc, diags := parse(name+".yaml", []byte(text), fast)
			if len(diags) > 0 {
				t.Errorf("%s (fast %v): %v", name, fast, diags)
				continue
			}
			if !reflect.DeepEqual(doc.Value, lf.Value) {
				t.Errorf("%s (fast %v): values differ:\n got %#v\nwant %#v", name, fast, doc.Value, lf.Value)
			}
			for _, ptr := range []string{"/items/0/double", "/items/0/literal", "/items/0/flow/n", "/items/1/key"} {
				lfl, lfc := lf.Pos(ptr)
				l, c := doc.Pos(ptr)
				if l != lfl || c != lfc {
					t.Errorf("%s (fast %v): Pos(%s) = %d:%d, LF gives %d:%d", name, fast, ptr, l, c, lfl, lfc)
				}
			}
			if got, want := doc.Comments(""), lf.Comments(""); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (fast %v): comments %v, LF gives %v", name, fast, got, want)
			}
		}
	}
}

// A block-style file, the kind the fast path takes.
func TestCRLFFastPath(t *testing.T) {
	const block = "evaluation_runs:\n  - evaluation_key: ev\n    id: \"r\n      1\"\n    note: plain\n      text\n"
	lf, _ := Parse("lf.yaml", []byte(block))
	crlf, diags := Parse("crlf.yaml", []byte(strings.ReplaceAll(block, "\n", "\r\n")))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if !reflect.DeepEqual(crlf.Value, lf.Value) {
		t.Errorf("values differ:\n got %#v\nwant %#v", crlf.Value, lf.Value)
	}
}
