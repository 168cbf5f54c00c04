package risk

import (
	"fmt"
	"strings"
)

// Gate is a --fail-on (or a run file's fail_on) threshold: it trips on every
// result at its level or above, and on every result whose level is error,
// whatever the threshold, because a score that could not be computed may be
// any score. A gate that cannot see is not green: a result of level no_data
// trips it too, unless AllowNoData says the user accepts scorers without
// data, and so does an overview with no risk scorer at all. The gate
// no_data trips on no_data and error only. The zero Gate is off.
type Gate struct {
	Level       Level
	AllowNoData bool // no_data results (and an empty overview) do not trip the gate
}

// ParseGate reads a gate level: "" (off), no_data, low, medium, high or
// critical.
func ParseGate(s string) (Gate, error) {
	if s == "" {
		return Gate{}, nil
	}
	if s == string(NoData) {
		return Gate{Level: NoData}, nil
	}
	for _, l := range Levels {
		if string(l) == s {
			return Gate{Level: l}, nil
		}
	}
	return Gate{}, fmt.Errorf("unknown --fail-on level %q: use no_data, low, medium, high or critical", s)
}

// On reports whether the gate is set.
func (g Gate) On() bool { return g.Level != "" }

// Trips tells whether one result trips the gate.
func (g Gate) Trips(r Result) bool {
	switch {
	case !g.On():
		return false
	case r.Level == Failed:
		return true
	case r.Level == NoData:
		return !g.AllowNoData
	case g.Level == NoData:
		return false
	}
	return r.Level.Rank() >= g.Level.Rank()
}

// Tripped returns what trips the gate, one entry per result in res order:
// "key (level)", "key (no_data)" or "key (error: why)" for a result that
// failed.
func (g Gate) Tripped(res []Result) []string {
	var hit []string
	for _, r := range res {
		if !g.Trips(r) {
			continue
		}
		if r.Level == Failed {
			hit = append(hit, fmt.Sprintf("%s (%s: %s)", r.Key, Failed, r.Error))
		} else {
			hit = append(hit, fmt.Sprintf("%s (%s)", r.Key, r.Level))
		}
	}
	return hit
}

// Check returns nil when nothing trips the gate, else an error that names
// every result that does. An empty res trips a gate that does not allow
// no data: there was nothing to check.
func (g Gate) Check(res []Result) error {
	if g.On() && len(res) == 0 && !g.AllowNoData {
		return fmt.Errorf("--fail-on %s: no risk scorer to check, so the gate cannot pass (add risk scorers, or accept it with --allow-no-data or the run file's overview.allow_no_data)", g.Level)
	}
	hit := g.Tripped(res)
	if len(hit) == 0 {
		return nil
	}
	msg := fmt.Sprintf("--fail-on %s: %s", g.Level, strings.Join(hit, ", "))
	for _, r := range res {
		if r.Level == NoData && g.Level != NoData && g.Trips(r) {
			msg += " (no_data: no value in scope, so the gate cannot see; --allow-no-data or the run file's overview.allow_no_data accepts it)"
			break
		}
	}
	return fmt.Errorf("%s", msg)
}
