package risk

import (
	"fmt"
	"strconv"
	"strings"
)

// Baseline is what a regression gate compares against: each risk scorer's
// level and score at an earlier moment or in an earlier overview.
type Baseline struct {
	// From says where the baseline comes from, for messages: "as of
	// 2026-11-01T00:00:00Z" or "main.json".
	From    string
	Entries map[string]BaselineEntry
}

// BaselineEntry is one scorer's level and score in a baseline.
type BaselineEntry struct {
	Level Level
	Score *float64
}

// Change kinds of a scorer against its baseline.
const (
	ChangeRose   = "rose"    // its level is higher than at the baseline
	ChangeFell   = "fell"    // lower
	ChangeSame   = "same"    // the same level
	ChangeNew    = "new"     // no level at the baseline (absent or no_data there)
	ChangeBlind  = "no_data" // a level at the baseline, no value now: the gate cannot see
	ChangeFailed = "error"   // no score now: its function failed
)

// Change is one scorer's level now against its baseline.
type Change struct {
	Key  string
	Kind string
	From *BaselineEntry // nil when the baseline has no entry for the scorer
	To   Result
}

// RiseGate is --fail-on-rise: it trips on every scorer whose level rose
// since the baseline, that has no value now while it had a level then (a
// gate that cannot see is not green), or whose score failed; on a scorer
// new since the baseline only with FailOnNew. A gate without a baseline is
// off; with a baseline and Fail unset it only reports.
type RiseGate struct {
	Baseline  *Baseline
	Fail      bool
	FailOnNew bool
}

// On reports whether the gate compares against a baseline.
func (g RiseGate) On() bool { return g.Baseline != nil }

// Compare returns the change of each result against the baseline, in res
// order.
func (g RiseGate) Compare(res []Result) []Change {
	if !g.On() {
		return nil
	}
	out := make([]Change, 0, len(res))
	for _, r := range res {
		c := Change{Key: r.Key, To: r}
		if e, ok := g.Baseline.Entries[r.Key]; ok {
			c.From = &e
		}
		out = append(out, c)
		last := &out[len(out)-1]
		switch {
		case r.Level == Failed:
			last.Kind = ChangeFailed
		case c.From == nil || c.From.Level.Rank() == 0:
			last.Kind = ChangeNew
		case r.Level.Rank() == 0:
			last.Kind = ChangeBlind
		case r.Level.Rank() > c.From.Level.Rank():
			last.Kind = ChangeRose
		case r.Level.Rank() < c.From.Level.Rank():
			last.Kind = ChangeFell
		default:
			last.Kind = ChangeSame
		}
	}
	return out
}

// Fails reports whether c trips the gate.
func (g RiseGate) Fails(c Change) bool {
	if !g.Fail {
		return false
	}
	switch c.Kind {
	case ChangeRose, ChangeBlind, ChangeFailed:
		return true
	case ChangeNew:
		return g.FailOnNew
	}
	return false
}

// Describe says what happened to c's scorer since the baseline, e.g. "rose
// from medium (3.00) to high (5.00) since as of 2026-11-01T00:00:00Z".
func (g RiseGate) Describe(c Change) string {
	now := levelScore(c.To.Level, c.To.Score)
	switch c.Kind {
	case ChangeNew:
		if c.From == nil {
			return fmt.Sprintf("new since %s (not in the baseline), now %s", g.Baseline.From, now)
		}
		return fmt.Sprintf("new since %s (no_data there), now %s", g.Baseline.From, now)
	case ChangeFailed:
		return fmt.Sprintf("error now (%s); %s", c.To.Error, g.was(c))
	case ChangeBlind:
		return fmt.Sprintf("no_data now, so the gate cannot see; %s", g.was(c))
	}
	return fmt.Sprintf("%s from %s to %s since %s", c.Kind, levelScore(c.From.Level, c.From.Score), now, g.Baseline.From)
}

func (g RiseGate) was(c Change) string {
	if c.From == nil {
		return "not in the baseline " + g.Baseline.From
	}
	return fmt.Sprintf("was %s at %s", levelScore(c.From.Level, c.From.Score), g.Baseline.From)
}

func levelScore(l Level, score *float64) string {
	if score == nil {
		return string(l)
	}
	return fmt.Sprintf("%s (%s)", l, strconv.FormatFloat(*score, 'f', 2, 64))
}

// Tripped returns what trips the gate, "key: description", in res order.
func (g RiseGate) Tripped(res []Result) []string {
	var hit []string
	for _, c := range g.Compare(res) {
		if g.Fails(c) {
			hit = append(hit, c.Key+": "+g.Describe(c))
		}
	}
	return hit
}

// Check returns nil when nothing trips the gate, else an error naming every
// scorer that does.
func (g RiseGate) Check(res []Result) error {
	hit := g.Tripped(res)
	if len(hit) == 0 {
		return nil
	}
	return fmt.Errorf("--fail-on-rise: %s", strings.Join(hit, "; "))
}
