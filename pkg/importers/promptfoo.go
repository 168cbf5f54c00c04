package importers

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

type pfExport struct {
	EvalID  string     `json:"evalId"`
	Results *pfResults `json:"results"`
	Config  struct {
		Description string `json:"description"`
	} `json:"config"`
	Metadata struct {
		PromptfooVersion    string `json:"promptfooVersion"`
		EvaluationCreatedAt string `json:"evaluationCreatedAt"`
	} `json:"metadata"`
}

type pfResults struct {
	Version   int     `json:"version"`
	Timestamp string  `json:"timestamp"`
	Results   []pfRow `json:"results"`
}

type pfRow struct {
	Provider      json.RawMessage            `json:"provider"`
	PromptIdx     int                        `json:"promptIdx"`
	TestIdx       int                        `json:"testIdx"`
	Prompt        struct{ Label string }     `json:"prompt"`
	Success       bool                       `json:"success"`
	Score         json.RawMessage            `json:"score"`
	FailureReason int                        `json:"failureReason"`
	Error         *string                    `json:"error"`
	NamedScores   map[string]json.RawMessage `json:"namedScores"`
	TestCase      struct {
		Description string `json:"description"`
	} `json:"testCase"`
	Metadata struct {
		PluginID     string `json:"pluginId"`
		StrategyID   string `json:"strategyId"`
		Severity     string `json:"severity"`
		HarmCategory string `json:"harmCategory"`
	} `json:"metadata"`
}

// promptfoo failure reasons.
const (
	pfAssertFailed = 1 // an assertion failed: a finding
	pfError        = 2 // the provider or the test itself failed: not a finding
)

// providerName is the provider's label, else its id (a row's provider is an
// object in v3 exports and a plain string in some older ones).
func (r *pfRow) providerName() string {
	var s string
	if json.Unmarshal(r.Provider, &s) == nil {
		return s
	}
	var p struct{ ID, Label string }
	_ = json.Unmarshal(r.Provider, &p)
	if p.Label != "" {
		return p.Label
	}
	return p.ID
}

func (r *pfRow) errored() bool { return r.FailureReason == pfError }

func importPromptfoo(src *source, b []byte, sum string) ([]*runBuilder, error) {
	doc := lax(b)
	x, ok := decodePromptfooFast(doc.out)
	if !ok {
		x = pfExport{}
		if err := doc.decode(src, &x, "promptfoo export"); err != nil {
			return nil, err
		}
	}
	if x.Results == nil {
		return nil, src.errorf(1, 1, "", "not a promptfoo export: no results (write one with `promptfoo eval -o results.json`)")
	}
	if x.Results.Version < 3 {
		return nil, src.errorf(1, 1, "/results/version", "promptfoo export version %d is not supported: export with promptfoo 0.60 or later (version 3)", x.Results.Version)
	}
	doc.nonFiniteWarnings(src)
	created, err := parseTime(x.Results.Timestamp)
	if err != nil {
		created, err = parseTime(x.Metadata.EvaluationCreatedAt)
	}
	if err != nil {
		return nil, src.errorf(1, 1, "/results/timestamp", "no time stamp in results.timestamp or metadata.evaluationCreatedAt")
	}
	redteam := false
	for _, r := range x.Results.Results {
		if r.Metadata.PluginID != "" {
			redteam = true
			break
		}
	}
	newPF := func() *runBuilder {
		run := newRun("promptfoo", sum)
		run.toolVersion = x.Metadata.PromptfooVersion
		run.id = x.EvalID
		if run.id == "" {
			// evalId is null when the eval was not written to promptfoo's database (--no-write)
			run.id = "promptfoo-" + sum[:16]
		}
		run.createdAt = created
		if x.Config.Description != "" {
			run.meta["description"] = x.Config.Description
		}
		return run
	}
	if !redteam {
		run := newPF()
		run.evaluation = "promptfoo"
		promptfooPlain(src, run, x.Results.Results)
		return []*runBuilder{run}, nil
	}
	// One run per target: results group by plugin and strategy.
	var targets []string
	byTarget := map[string][]int{}
	for i, r := range x.Results.Results {
		t := r.providerName()
		if _, ok := byTarget[t]; !ok {
			targets = append(targets, t)
		}
		byTarget[t] = append(byTarget[t], i)
	}
	var runs []*runBuilder
	for _, t := range targets {
		run := newPF()
		run.evaluation = "promptfoo-redteam"
		if len(targets) > 1 {
			run.id += "-" + t
		}
		run.meta["target"] = t
		promptfooRedteam(src, run, x.Results.Results, byTarget[t])
		runs = append(runs, run)
	}
	return runs, nil
}

// promptfooPlain stores one result per (test, provider and prompt): pass (1 or
// 0), score and the named scores.
func promptfooPlain(src *source, run *runBuilder, rows []pfRow) {
	// A test is named by its description when no other test shares it.
	testsOf := map[string]map[int]bool{}
	for _, r := range rows {
		if testsOf[r.TestCase.Description] == nil {
			testsOf[r.TestCase.Description] = map[int]bool{}
		}
		testsOf[r.TestCase.Description][r.TestIdx] = true
	}
	errs := 0
	for i, r := range rows {
		task := r.TestCase.Description
		if task == "" || len(testsOf[task]) > 1 {
			task = fmt.Sprintf("test-%d", r.TestIdx)
		}
		label := r.Prompt.Label
		if label == "" {
			label = fmt.Sprintf("prompt-%d", r.PromptIdx)
		}
		scorer := r.providerName() + "/" + label
		ptr := fmt.Sprintf("/results/results/%d", i)
		if r.errored() {
			errs++
			run.add(task, scorer, []metricVal{{name: "error", value: 1}})
			continue
		}
		ms := []metricVal{{name: "pass", value: b2f(r.Success)}}
		if v, why, ok := num(r.Score); ok {
			ms = append(ms, metricVal{name: "score", value: v})
		} else if len(r.Score) > 0 {
			src.skip(0, 0, ptr+"/score", "score dropped: %s", why)
		}
		for _, k := range slices.Sorted(maps.Keys(r.NamedScores)) {
			v, why, ok := num(r.NamedScores[k])
			if !ok {
				src.skip(0, 0, ptr+"/namedScores/"+ptrEscape(k), "named score %q dropped: %s", k, why)
				continue
			}
			ms = append(ms, metricVal{name: k, value: v})
		}
		run.add(task, scorer, ms)
	}
	if errs > 0 {
		run.note("%d of %d rows errored (the provider or the test failed); they are stored as error: 1 with no pass", errs, len(rows))
	}
	if len(rows) > 0 && errs == len(rows) {
		run.status = "failed"
		run.note("every row errored: the run is failed")
	}
}

// promptfooRedteam groups the rows of one target by plugin and strategy.
func promptfooRedteam(src *source, run *runBuilder, rows []pfRow, idx []int) {
	type group struct {
		plugin, strategy              string
		total, passed, failed, errors int
	}
	var order []string
	groups := map[string]*group{}
	plugins := map[string]any{}
	for _, i := range idx {
		r := rows[i]
		plugin := r.Metadata.PluginID
		if plugin == "" {
			plugin = "none"
		}
		strategy := r.Metadata.StrategyID
		if strategy == "" {
			strategy = "basic"
		}
		k := plugin + "\x00" + strategy
		g := groups[k]
		if g == nil {
			g = &group{plugin: plugin, strategy: strategy}
			groups[k] = g
			order = append(order, k)
		}
		g.total++
		switch {
		case r.errored():
			g.errors++
		case r.Success:
			g.passed++
		default:
			g.failed++
		}
		if _, ok := plugins[plugin]; !ok && (r.Metadata.Severity != "" || r.Metadata.HarmCategory != "") {
			p := map[string]any{}
			if r.Metadata.Severity != "" {
				p["severity"] = r.Metadata.Severity
			}
			if r.Metadata.HarmCategory != "" {
				p["harm_category"] = r.Metadata.HarmCategory
			}
			plugins[plugin] = p
		}
	}
	allErr := len(idx) > 0
	for _, k := range order {
		g := groups[k]
		ms := []metricVal{
			{"total", float64(g.total)},
			{"passed", float64(g.passed)},
			{"failed", float64(g.failed)},
			{"errors", float64(g.errors)},
		}
		if graded := g.total - g.errors; graded > 0 {
			allErr = false
			ms = append(ms,
				metricVal{"pass_rate", float64(g.passed) / float64(graded)},
				metricVal{"attack_success_rate", float64(g.failed) / float64(graded)})
		} else {
			src.skip(0, 0, "", "plugin %s, strategy %s: every row errored, so pass_rate and attack_success_rate are not stored (0 graded rows)", g.plugin, g.strategy)
		}
		run.add(g.plugin, g.strategy, ms)
	}
	if len(plugins) > 0 {
		run.meta["plugins"] = plugins
	}
	if allErr {
		run.status = "failed"
		run.note("every row errored: the run is failed")
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// parseTime reads RFC 3339 time stamps, with or without fractional seconds.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("empty time stamp")
	}
	return time.Parse(time.RFC3339Nano, s)
}

// parseNaiveTime reads a time stamp that may lack a zone; naive says whether
// it did, in which case it is read as UTC.
func parseNaiveTime(s string) (t time.Time, naive bool, err error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true, nil
		}
	}
	return time.Time{}, false, fmt.Errorf("cannot read time stamp %q", s)
}

// decodePromptfooFast reads an export with walker, decoding only the fields
// lf uses (a row's prompt, output and grading text are skipped). ok is false
// when the walk fails; the caller then decodes with encoding/json, which
// locates the problem.
func decodePromptfooFast(b []byte) (x pfExport, ok bool) {
	var w walker
	un := func(v []byte, dst any) error {
		if json.Unmarshal(v, dst) != nil {
			return errWalk
		}
		return nil
	}
	doc, err := w.document(b)
	if err != nil {
		return x, false
	}
	err = w.members(doc, func(k string, v []byte) error {
		switch strings.ToLower(k) {
		case "evalid":
			return un(v, &x.EvalID)
		case "config":
			return w.members(v, func(k string, v []byte) error {
				if strings.EqualFold(k, "description") {
					return un(v, &x.Config.Description)
				}
				return nil
			})
		case "metadata":
			return un(v, &x.Metadata)
		case "results":
			if string(v) == "null" {
				return nil
			}
			x.Results = &pfResults{}
			return w.members(v, func(k string, v []byte) error {
				switch strings.ToLower(k) {
				case "version":
					return un(v, &x.Results.Version)
				case "timestamp":
					return un(v, &x.Results.Timestamp)
				case "results":
					x.Results.Results = nil
					if string(v) != "null" {
						x.Results.Results = []pfRow{}
					}
					return w.elements(v, func(v []byte) error {
						var r pfRow
						if err := decodePromptfooRow(w, v, &r, un); err != nil {
							return err
						}
						x.Results.Results = append(x.Results.Results, r)
						return nil
					})
				}
				return nil
			})
		}
		return nil
	})
	return x, err == nil
}

func decodePromptfooRow(w walker, v []byte, r *pfRow, un func([]byte, any) error) error {
	return w.members(v, func(k string, v []byte) error {
		switch strings.ToLower(k) {
		case "provider":
			r.Provider = json.RawMessage(v)
			return un(v, new(any))
		case "promptidx":
			return un(v, &r.PromptIdx)
		case "testidx":
			return un(v, &r.TestIdx)
		case "success":
			return un(v, &r.Success)
		case "score":
			r.Score = json.RawMessage(v)
			return un(v, new(any))
		case "failurereason":
			return un(v, &r.FailureReason)
		case "error":
			return un(v, &r.Error)
		case "namedscores":
			return un(v, &r.NamedScores)
		case "metadata":
			return un(v, &r.Metadata)
		case "prompt":
			return w.members(v, func(k string, v []byte) error {
				if strings.EqualFold(k, "label") {
					return un(v, &r.Prompt.Label)
				}
				return nil
			})
		case "testcase":
			return w.members(v, func(k string, v []byte) error {
				if strings.EqualFold(k, "description") {
					return un(v, &r.TestCase.Description)
				}
				return nil
			})
		}
		return nil
	})
}
