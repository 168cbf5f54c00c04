package output

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// golden compares got with testdata/NAME; LF_UPDATE=1 rewrites the file.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if os.Getenv("LF_UPDATE") == "1" {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (LF_UPDATE=1 go test ./pkg/output writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestTableGolden(t *testing.T) {
	var buf bytes.Buffer
	err := Table(&buf, []string{"KEY", "SCORE", "LEVEL"}, [][]string{
		{"quality_external", "3.20", "medium"},
		{"quality_internal", "1.60", "low"},
		{"ünïcode", "-", "no_data"},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "table.golden", buf.Bytes())
}

func TestYAMLOfGolden(t *testing.T) {
	b, err := YAMLOf([]map[string]any{{"key": "a", "score": 0.5, "values": 3, "runs": []string{"e/r1"}}, {"key": "b", "score": nil}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "yamlof.golden", b)
}
