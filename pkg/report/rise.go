package report

import (
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/risk"
)

// change returns r's change against the baseline, when there is one.
func (s Scorers) change(r risk.Result) (risk.Change, bool) {
	if !s.Rise.On() {
		return risk.Change{}, false
	}
	cs := s.Rise.Compare([]risk.Result{r})
	return cs[0], true
}

// addRise adds the baseline's columns to a scorer's check and fails it
// when it trips the rise gate, saying what rose and from where.
func (s Scorers) addRise(c *output.Check, r risk.Result) {
	ch, ok := s.change(r)
	if !ok {
		return
	}
	was := "-"
	if ch.From != nil {
		was = string(ch.From.Level)
		if ch.From.Score != nil {
			was += " (" + scoreText(risk.Result{Score: ch.From.Score}) + ")"
		}
	}
	c.Columns = append(c.Columns, output.Cell{Name: "baseline", Value: was}, output.Cell{Name: "change", Value: ch.Kind})
	c.Detail += "\nbaseline: " + s.Rise.Describe(ch)
	if !s.Rise.Fails(ch) {
		return
	}
	msg := r.Key + ": " + s.Rise.Describe(ch) + " (--fail-on-rise)"
	if c.Failed {
		c.Message += "; " + msg
	} else {
		c.Failed, c.Message = true, msg
	}
}

// riseFinding is the SARIF result of a scorer that trips the rise gate.
func (s Scorers) riseFinding(r risk.Result) (output.Finding, bool) {
	ch, ok := s.change(r)
	if !ok || !s.Rise.Fails(ch) {
		return output.Finding{}, false
	}
	props := map[string]any{"riskLevel": string(r.Level), "score": r.Score, "domain": r.Domain, "runs": runsText(r), "change": ch.Kind, "baseline": s.Rise.Baseline.From}
	if ch.From != nil {
		props["baselineLevel"] = string(ch.From.Level)
		props["baselineScore"] = ch.From.Score
	}
	return output.Finding{
		RuleID: "risk-scorer-rise/" + r.Key, RuleName: nonEmpty(r.DisplayName, r.Key) + " (regression)",
		Description: "risk scorer " + r.Key + " (" + r.Domain + ") compared with a baseline",
		Level:       "error",
		Message:     "risk scorer " + r.Key + " " + s.Rise.Describe(ch) + " (runs " + runsText(r) + ")",
		Properties:  props,
	}, true
}
