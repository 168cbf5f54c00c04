package yamlsrc

import (
	"os"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

const roundTripSample = `# about a
- key: a # the key
  # about the name
  display_name: "yes"
  description: >
    folded
    text
  n: 3
  f: 4.0
  g: 0.000000001
  s: "01"
  list: [x, "y z", 1, true, null]
  long:
    # first
    - one
    - two # second
  empty: {}
  none: []
  nested:
    - - deep
    - {a: 1}
  multi: "a\n  b\n"
  keep: |+
    k

- key: "b: c"
  odd: "#hash"
`

func TestYAMLRoundTrip(t *testing.T) {
	assertRoundTrip(t, []byte(roundTripSample))
}

func assertRoundTrip(t *testing.T, src []byte) {
	t.Helper()
	doc, diags := Parse("in.yaml", src)
	if len(diags) > 0 {
		return
	}
	out := Encode(doc.Value, EncodeStyle{Comments: doc.Comments("")})
	doc2, diags := Parse("out.yaml", out)
	if len(diags) > 0 {
		t.Fatalf("output does not parse: %v\n%s", diags, out)
	}
	if !reflect.DeepEqual(doc.Value, doc2.Value) {
		t.Fatalf("values differ:\n%#v\n%#v\n%s", doc.Value, doc2.Value, out)
	}
	out2 := Encode(doc2.Value, EncodeStyle{Comments: doc2.Comments("")})
	if string(out) != string(out2) {
		t.Fatalf("not a fixed point:\n%s\n---\n%s", out, out2)
	}
}

func FuzzYAMLRoundTrip(f *testing.F) {
	for _, p := range testfiles.ExampleYAML() {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(roundTripSample))
	f.Add([]byte("a: [1, {b: c}]\n"))
	f.Add([]byte("k: 'it''s'\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		assertRoundTrip(t, data)
	})
}
