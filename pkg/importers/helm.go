package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type helmRunSpec struct {
	Name         string `json:"name"`
	ScenarioSpec *struct {
		ClassName string `json:"class_name"`
	} `json:"scenario_spec"`
	AdapterSpec struct {
		Model            string          `json:"model"`
		ModelDeployment  string          `json:"model_deployment"`
		MaxEvalInstances json.RawMessage `json:"max_eval_instances"`
	} `json:"adapter_spec"`
	Groups []string `json:"groups"`
}

type helmStat struct {
	Name *struct {
		Name         string          `json:"name"`
		Split        string          `json:"split"`
		SubSplit     string          `json:"sub_split"`
		Perturbation json.RawMessage `json:"perturbation"`
	} `json:"name"`
	Count json.RawMessage `json:"count"`
	Mean  json.RawMessage `json:"mean"`
}

// helmFiles finds a run's run_spec.json and stats.json: in a run folder, or
// beside a file whose name ends in run_spec.json (or stats.json) with the same
// prefix.
func helmFiles(src *source) (spec, stats string, err error) {
	if src.isDir {
		return filepath.Join(src.path, "run_spec.json"), filepath.Join(src.path, "stats.json"), nil
	}
	base := src.path
	switch {
	case strings.HasSuffix(base, "run_spec.json"):
		return base, strings.TrimSuffix(base, "run_spec.json") + "stats.json", nil
	case strings.HasSuffix(base, "per_instance_stats.json"):
		p := strings.TrimSuffix(base, "per_instance_stats.json")
		return p + "run_spec.json", p + "stats.json", nil
	case strings.HasSuffix(base, "stats.json"):
		p := strings.TrimSuffix(base, "stats.json")
		return p + "run_spec.json", base, nil
	}
	return "", "", src.errorf(0, 0, "", "a HELM run is a folder with run_spec.json and stats.json: give the folder or its run_spec.json")
}

// importHELM reads a run's run_spec.json and stats.json. HELM writes no time
// stamp: created_at is the newest modification time of the two files, marked
// as inferred; the run id is the run's name and never depends on it.
func importHELM(src *source) ([]*runBuilder, error) {
	if src.r != nil {
		return nil, src.errorf(0, 0, "", "a HELM run is two files (run_spec.json, stats.json): give the folder, not standard input")
	}
	specPath, statsPath, err := helmFiles(src)
	if err != nil {
		return nil, err
	}
	specB, specInfo, err := readWithInfo(src, specPath)
	if err != nil {
		return nil, err
	}
	statsB, statsInfo, err := readWithInfo(src, statsPath)
	if err != nil {
		return nil, err
	}
	specSrc := &source{path: specPath, fr: src.fr}
	var spec helmRunSpec
	specDoc := lax(specB)
	if err := specDoc.decode(specSrc, &spec, "HELM run_spec.json"); err != nil {
		return nil, err
	}
	if spec.Name == "" || spec.ScenarioSpec == nil {
		return nil, specSrc.errorf(1, 1, "", "not a HELM run_spec.json: no name and scenario_spec")
	}
	statsSrc := &source{path: statsPath, fr: src.fr}
	var stats []helmStat
	statsDoc := lax(statsB)
	if err := statsDoc.decode(statsSrc, &stats, "HELM stats.json"); err != nil {
		return nil, err
	}
	specDoc.nonFiniteWarnings(specSrc)
	statsDoc.nonFiniteWarnings(statsSrc)

	run := newRun("helm", digest(append(append([]byte(nil), specB...), statsB...)))
	task := helmDescribe(run, &spec, specInfo, statsInfo)
	run.meta["source_files"] = []any{filepath.Base(specPath), filepath.Base(statsPath)}
	split := helmSplit(stats)
	bySub, err := helmMetrics(statsSrc, stats, split)
	if err != nil {
		return nil, err
	}
	src.skipped += statsSrc.skipped
	run.meta["split"] = split
	for _, sub := range slices.Sorted(maps.Keys(bySub)) {
		if sub == "" {
			run.add(task, "helm", bySub[sub])
			continue
		}
		// A sub-split (real_toxicity_prompts' toxic and non-toxic prompts)
		// is its own task: its means are not those of the whole split.
		run.add(task+"/"+sub, "helm", bySub[sub])
	}
	return []*runBuilder{run}, nil
}

// helmDescribe names the run from its spec (evaluation: the first group or
// the scenario; id: the run's name), infers its time from the two files and
// returns the task: the scenario with its arguments other than the model.
func helmDescribe(run *runBuilder, spec *helmRunSpec, specInfo, statsInfo os.FileInfo) string {
	scenario, args, _ := strings.Cut(spec.Name, ":")
	run.evaluation = scenario
	if len(spec.Groups) > 0 && spec.Groups[0] != "" {
		run.evaluation = spec.Groups[0]
	}
	run.id = spec.Name
	task := scenario
	var kept []string
	for _, a := range strings.Split(args, ",") {
		if a != "" && !strings.HasPrefix(a, "model=") && !strings.HasPrefix(a, "model_deployment=") {
			kept = append(kept, a)
		}
	}
	if len(kept) > 0 {
		task += ":" + strings.Join(kept, ",")
	}
	newest := specInfo.ModTime()
	if statsInfo.ModTime().After(newest) {
		newest = statsInfo.ModTime()
	}
	run.createdAt = newest.UTC().Truncate(time.Second)
	run.meta["created_at_inferred"] = "newest modification time of run_spec.json and stats.json (HELM writes no time stamp)"
	run.meta["run_name"] = spec.Name
	if spec.AdapterSpec.Model != "" {
		run.meta["model"] = spec.AdapterSpec.Model
	}
	if v, _, ok := num(spec.AdapterSpec.MaxEvalInstances); ok {
		run.meta["limit"] = v
		run.note("evaluated on at most %g instances (max_eval_instances)", v)
	}
	return task
}

// helmSplit is the split whose means are taken: test, or valid when the
// run has no test split.
func helmSplit(stats []helmStat) string {
	for _, s := range stats {
		if s.Name != nil && s.Name.Split == "test" {
			return "test"
		}
	}
	return "valid"
}

// helmMetrics takes the means of the split without perturbation, per
// sub-split ("" for the stats of the whole split); stats with no instance are
// left out and non-finite means dropped with a located note.
func helmMetrics(statsSrc *source, stats []helmStat, split string) (map[string][]metricVal, error) {
	bySub := map[string][]metricVal{}
	for i, s := range stats {
		if s.Name == nil {
			return nil, statsSrc.errorf(0, 0, fmt.Sprintf("/%d/name", i), "stat without a name: not a HELM stats.json")
		}
		n := s.Name
		if n.Split != split || (len(n.Perturbation) > 0 && string(n.Perturbation) != "null") {
			continue
		}
		if c, _, ok := num(s.Count); ok && c == 0 {
			continue // no instance: no mean
		}
		v, why, ok := num(s.Mean)
		if !ok {
			statsSrc.skip(0, 0, fmt.Sprintf("/%d/mean", i), "stat %q dropped: %s", n.Name, why)
			continue
		}
		bySub[n.SubSplit] = append(bySub[n.SubSplit], metricVal{n.Name, v})
	}
	return bySub, nil
}

// expandSuites replaces each HELM suite folder among paths (runs/<suite>/:
// one folder per run, each with its run_spec.json) by its run folders, so
// that every run is imported, and fails or succeeds, on its own.
func expandSuites(format Format, paths []string) []string {
	if format != "" && format != HELM {
		return paths
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if runs := helmSuiteRuns(p); len(runs) > 0 {
			out = append(out, runs...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// helmSuiteRuns lists the run folders of a suite folder, in name order; nil
// when p is not a folder, is a run folder itself, or holds no run.
func helmSuiteRuns(p string) []string {
	if p == "-" {
		return nil
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(p, "run_spec.json")); err == nil {
		return nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil
	}
	var runs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, e.Name(), "run_spec.json")); err == nil {
			runs = append(runs, filepath.Join(p, e.Name()))
		}
	}
	return runs
}

func readWithInfo(src *source, p string) ([]byte, os.FileInfo, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, nil, src.errorf(0, 0, "", "%s: %v (a HELM run needs run_spec.json and stats.json)", p, unwrapPathError(err))
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, src.errorf(0, 0, "", "%s: %v", p, unwrapPathError(err))
	}
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), st, nil // a byte-order mark is skipped
}
