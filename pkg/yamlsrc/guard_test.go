package yamlsrc

import (
	"strings"
	"testing"
	"time"
)

func TestGuards(t *testing.T) {
	deepBlock := ""
	for i := 0; i < 70; i++ {
		deepBlock += strings.Repeat("  ", i) + "k:\n"
	}
	deepBlock += strings.Repeat("  ", 70) + "k: 1\n"
	cases := []struct {
		name, in, want string
	}{
		{"utf8", "a: ok\nb: \xff\n", "x:2:4: not UTF-8: byte 0xff"},
		{"flow", "a: " + strings.Repeat("[", 100000), "x:1:67: nested deeper than 64 levels"},
		{"dashes", strings.Repeat("- ", 70) + "x\n", "nested deeper than 64 levels"},
		{"block", deepBlock, "x:65:129: nested deeper than 64 levels"},
		{"inf", "a: 1e999\n", "x:1:4: /a: 1e999 is not a finite number"},
	}
	for _, c := range cases {
		start := time.Now()
		_, ds := Parse("x", []byte(c.in))
		if time.Since(start) > 2*time.Second {
			t.Errorf("%s: took %v", c.name, time.Since(start))
		}
		if len(ds) != 1 || !strings.Contains(ds[0].String(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, ds, c.want)
		}
	}
	// Not too deep: block scalars, quoted brackets and 60 levels pass.
	ok := "a: |\n  [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\nb: \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"\nc: " +
		strings.Repeat("[", 60) + strings.Repeat("]", 60) + "\n"
	if d, ds := Parse("x", []byte(ok)); len(ds) != 0 {
		t.Errorf("ok: %v", ds)
	} else if m := d.Value.(map[string]any); !strings.HasPrefix(m["b"].(string), "[[[") {
		t.Errorf("ok: %#v", m)
	}
	d, _ := Parse("x", []byte("a: 1e308\nb: '1e3'\n"))
	if m := d.Value.(map[string]any); m["a"] != 1e308 || m["b"] != "1e3" {
		t.Errorf("numbers: %#v", m)
	}
}
