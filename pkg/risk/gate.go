package risk

import (
	"fmt"
	"strings"
)

// Gate is a --fail-on (or a run file's fail_on) threshold: it trips on every
// result at its level or above, and on every result whose level is error,
// whatever the threshold, because a score that could not be computed may be
// any score. The zero Gate is off.
type Gate struct {
	Level Level
}

// ParseGate reads a gate level: "" (off), low, medium, high or critical.
func ParseGate(s string) (Gate, error) {
	if s == "" {
		return Gate{}, nil
	}
	for _, l := range Levels {
		if string(l) == s {
			return Gate{Level: l}, nil
		}
	}
	return Gate{}, fmt.Errorf("unknown --fail-on level %q: use low, medium, high or critical", s)
}

// On reports whether the gate is set.
func (g Gate) On() bool { return g.Level != "" }

// Tripped returns what trips the gate, one entry per result in res order:
// "key (level)", or "key (error: why)" for a result that failed.
func (g Gate) Tripped(res []Result) []string {
	if !g.On() {
		return nil
	}
	var hit []string
	for _, r := range res {
		switch {
		case r.Level == Failed:
			hit = append(hit, fmt.Sprintf("%s (%s: %s)", r.Key, Failed, r.Error))
		case r.Level.Rank() >= g.Level.Rank():
			hit = append(hit, fmt.Sprintf("%s (%s)", r.Key, r.Level))
		}
	}
	return hit
}

// Check returns nil when nothing trips the gate, else an error that names
// every result that does.
func (g Gate) Check(res []Result) error {
	hit := g.Tripped(res)
	if len(hit) == 0 {
		return nil
	}
	return fmt.Errorf("--fail-on %s: %s", g.Level, strings.Join(hit, ", "))
}
