package importers

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

type inspectLog struct {
	Version *int   `json:"version"`
	Status  string `json:"status"`
	Eval    *struct {
		EvalID           string `json:"eval_id"`
		RunID            string `json:"run_id"`
		TaskID           string `json:"task_id"`
		Task             string `json:"task"`
		TaskRegistryName string `json:"task_registry_name"`
		Created          string `json:"created"`
		Model            string `json:"model"`
		Dataset          struct {
			Name string `json:"name"`
		} `json:"dataset"`
		Config struct {
			Limit  json.RawMessage `json:"limit"`
			Epochs json.RawMessage `json:"epochs"`
		} `json:"config"`
		Packages map[string]string `json:"packages"`
	} `json:"eval"`
	Results *struct {
		TotalSamples     *int `json:"total_samples"`
		CompletedSamples *int `json:"completed_samples"`
		Scores           []struct {
			Name    string                  `json:"name"`
			Scorer  string                  `json:"scorer"`
			Reducer string                  `json:"reducer"`
			Metrics map[string]inspectValue `json:"metrics"`
		} `json:"scores"`
		// legacy v1
		Scorer  *struct{ Name string }  `json:"scorer"`
		Metrics map[string]inspectValue `json:"metrics"`
	} `json:"results"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type inspectValue struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
	Group string          `json:"group"`
}

// importInspect reads a JSON log, or the header.json of a .eval ZIP (the
// samples are not needed: the header has the results).
func importInspect(src *source) ([]*runBuilder, error) {
	if src.r == nil && !src.isDir {
		// A .eval file on disk is opened in place: only header.json is read
		// (and every byte hashed), however large its samples are.
		if f, err := os.Open(src.path); err == nil {
			var magic [4]byte
			n, _ := io.ReadFull(f, magic[:])
			if n == 4 && string(magic[:]) == "PK\x03\x04" {
				defer f.Close()
				h := sha256.New()
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					return nil, src.errorf(0, 0, "", "%v", err)
				}
				size, err := io.Copy(h, f)
				if err != nil {
					return nil, src.errorf(0, 0, "", "%v", err)
				}
				return inspectZip(src, f, size, hex.EncodeToString(h.Sum(nil)))
			}
			f.Close()
		}
	}
	b, err := src.readAll()
	if err != nil {
		return nil, err
	}
	sum := digest(b)
	if bytes.HasPrefix(b, []byte("PK\x03\x04")) {
		return inspectZip(src, bytes.NewReader(b), int64(len(b)), sum)
	}
	return inspectJSON(src, b, sum, "")
}

func inspectZip(src *source, ra io.ReaderAt, size int64, sum string) ([]*runBuilder, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, src.errorf(0, 0, "", "not an Inspect .eval file: %v", err)
	}
	var header, start *zip.File
	for _, f := range zr.File {
		switch f.Name {
		case "header.json":
			header = f
		case "_journal/start.json":
			start = f
		}
	}
	read := func(f *zip.File) ([]byte, error) {
		rc, err := f.Open()
		if err != nil {
			return nil, src.errorf(0, 0, "", "%s: %v", f.Name, err)
		}
		defer rc.Close()
		out, err := io.ReadAll(io.LimitReader(rc, 256<<20))
		if err != nil {
			return nil, src.errorf(0, 0, "", "%s: %v (is the .eval file cut short?)", f.Name, err)
		}
		return out, nil
	}
	switch {
	case header != nil:
		hb, err := read(header)
		if err != nil {
			return nil, err
		}
		return inspectJSON(src, hb, sum, "header.json")
	case start != nil:
		// The run is still going: only its start is journaled.
		sb, err := read(start)
		if err != nil {
			return nil, err
		}
		runs, err := inspectJSON(src, sb, sum, "_journal/start.json")
		for _, r := range runs {
			r.status = model.StatusRunning
			r.note("no header.json: the run had not finished when the file was read")
		}
		return runs, err
	}
	return nil, src.errorf(0, 0, "", "not an Inspect .eval file: no header.json or _journal/start.json in the ZIP")
}

func inspectJSON(src *source, b []byte, sum, member string) ([]*runBuilder, error) {
	what := "Inspect log"
	if member != "" {
		what = "Inspect log (" + member + ")"
	}
	doc := lax(b)
	var x inspectLog
	if err := doc.decode(src, &x, what); err != nil {
		return nil, err
	}
	if x.Eval == nil || x.Eval.Task == "" {
		return nil, src.errorf(1, 1, "/eval", "not an Inspect log: no eval.task")
	}
	doc.nonFiniteWarnings(src)
	e := x.Eval
	run := newRun("inspect", sum)
	run.toolVersion = e.Packages["inspect_ai"]
	run.evaluation = e.Task
	if e.TaskRegistryName != "" {
		run.evaluation = e.TaskRegistryName
	}
	created, naive, err := parseNaiveTime(e.Created)
	if err != nil {
		return nil, src.errorf(0, 0, "/eval/created", "%v", err)
	}
	if naive {
		run.meta["created_at_time_zone"] = "assumed UTC (the log has no zone)"
		src.warnf(0, 0, "/eval/created", "time stamp %q has no zone: read as UTC", e.Created)
	}
	run.createdAt = created
	switch {
	case e.EvalID != "":
		run.id = e.EvalID
	case e.RunID != "" && e.TaskID != "":
		// an eval-set retry shares run_id and task_id: the creation time tells them apart
		run.id = e.RunID + "-" + e.TaskID + "-" + created.UTC().Format("20060102T150405")
	default:
		h := sha256.Sum256([]byte(e.Task + "\x00" + e.Created + "\x00" + e.Model))
		run.id = "inspect-" + hex.EncodeToString(h[:8])
	}
	for k, v := range map[string]string{"model": e.Model, "run_id": e.RunID, "task_id": e.TaskID, "eval_id": e.EvalID, "dataset": e.Dataset.Name} {
		if v != "" {
			run.meta[k] = v
		}
	}
	if v, _, ok := num(e.Config.Limit); ok {
		run.meta["limit"] = v
	}
	if v, _, ok := num(e.Config.Epochs); ok {
		run.meta["epochs"] = v
	}
	if err := inspectStatus(src, run, &x); err != nil {
		return nil, err
	}
	inspectResults(src, run, &x)
	return []*runBuilder{run}, nil
}

// inspectStatus maps the log's status onto the run's: an error or a
// cancellation is a failed run whose results are partial.
func inspectStatus(src *source, run *runBuilder, x *inspectLog) error {
	switch x.Status {
	case "success":
		run.status = model.StatusCompleted
	case "started":
		run.status = model.StatusRunning
	case "error", "cancelled":
		run.status = model.StatusFailed
		msg := "the run ended with status " + x.Status + "; its results are partial"
		if x.Error != nil && x.Error.Message != "" {
			msg += ": " + firstLine(x.Error.Message)
		}
		run.note("%s", msg)
	default:
		return src.errorf(0, 0, "/status", "unknown Inspect status %q (want started, success, cancelled or error)", x.Status)
	}
	return nil
}

// inspectResults adds one result per scorer of the task (a scorer name that
// repeats with different reducers is named scorer/reducer), or the legacy
// v1 scorer, and keeps the sample counts.
func inspectResults(src *source, run *runBuilder, x *inspectLog) {
	res := x.Results
	if res == nil {
		return
	}
	task := x.Eval.Task
	if res.TotalSamples != nil {
		run.meta["total_samples"] = *res.TotalSamples
	}
	if res.CompletedSamples != nil {
		run.meta["completed_samples"] = *res.CompletedSamples
	}
	if len(res.Scores) == 0 {
		if res.Scorer != nil {
			run.add(task, res.Scorer.Name, inspectMetrics(src, res.Metrics, "/results/metrics"))
		}
		return
	}
	names := map[string]int{}
	for _, s := range res.Scores {
		names[s.Name]++
	}
	for i, s := range res.Scores {
		scorer := s.Name
		if scorer == "" {
			scorer = s.Scorer
		}
		if names[s.Name] > 1 && s.Reducer != "" {
			scorer += "/" + s.Reducer
		}
		run.add(task, scorer, inspectMetrics(src, s.Metrics, fmt.Sprintf("/results/scores/%d/metrics", i)))
	}
}

func inspectMetrics(src *source, m map[string]inspectValue, ptr string) []metricVal {
	var out []metricVal
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		name := k
		if v.Group != "" {
			name = v.Group + "/" + k
		}
		f, why, ok := num(v.Value)
		if !ok {
			src.skip(0, 0, ptr+"/"+ptrEscape(k)+"/value", "metric %q dropped: %s", name, why)
			continue
		}
		out = append(out, metricVal{name: name, value: f})
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
