package detect

import (
	"regexp"
	"slices"
	"testing"
)

// detectorOf is the first built-in detector of data type dt.
func detectorOf(tb testing.TB, dt string) *detector {
	tb.Helper()
	ds := builtinDetectors()
	for i := range ds {
		if ds[i].dt == dt {
			return &ds[i]
		}
	}
	tb.Fatalf("no built-in detector of %s", dt)
	return nil
}

// detectorTriggers are the trigger words of every built-in detector.
func detectorTriggers() [][]string {
	var out [][]string
	for _, d := range builtinDetectors() {
		if len(d.triggers) > 0 {
			out = append(out, d.triggers)
		}
	}
	return out
}

// TestDetectorsDeclared: each built-in detector is a whole declaration: a
// family a config can switch, a data type with one level (whichever
// detector reports it), a severity, an expression that compiles with its
// value group, one way to find its starts (a start class or trigger
// words), a screen slot only of its start class, at most one hand Matcher.
func TestDetectorsDeclared(t *testing.T) {
	level := map[string]int{}
	for i, d := range builtinDetectors() {
		name := d.family + "/" + d.dt
		if !slices.Contains(Families, d.family) || d.family == famKeyname {
			t.Errorf("%d %s: family %q", i, name, d.family)
		}
		if l, ok := level[d.dt]; ok && l != d.level {
			t.Errorf("%d %s: level %d, another detector of %s has %d", i, name, d.level, d.dt, l)
		}
		level[d.dt] = d.level
		if d.level < 1 || d.level > 4 || d.conf <= 0 || d.conf > 1 || !slices.Contains([]string{"low", "medium", "high", "critical"}, d.severity) {
			t.Errorf("%d %s: level %d severity %q confidence %v", i, name, d.level, d.severity, d.conf)
		}
		r := d.rule()
		re, err := regexp.Compile(r.re.src)
		if err != nil {
			t.Errorf("%d %s: %v", i, name, err)
			continue
		}
		if d.group > re.NumSubexp() {
			t.Errorf("%d %s: group %d of %d", i, name, d.group, re.NumSubexp())
		}
		if (d.starts == startAny) != (len(d.triggers) > 0) {
			t.Errorf("%d %s: start class %d and %d trigger words: one of them", i, name, d.starts, len(d.triggers))
		}
		if d.screen != 0 && screenClass(d.screen) != d.starts {
			t.Errorf("%d %s: screen slot %d sorts another start class", i, name, d.screen)
		}
		n := 0
		for _, set := range []bool{d.match != nil, d.words != nil, d.amount != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			t.Errorf("%d %s: %d hand matchers", i, name, n)
		}
	}
	if got := DefaultLevel("ssn"); got != 4 {
		t.Errorf("level of ssn from the detectors: %d", got)
	}
}
