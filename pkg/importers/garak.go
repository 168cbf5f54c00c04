package importers

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/internal/jsonlex"
	"github.com/lfcli/lf/pkg/model"
)

// garakThreshold is garak's default run.eval_threshold: an output whose
// detector score is below it passes.
const garakThreshold = 0.5

type garakEval struct {
	Probe          string          `json:"probe"`
	Detector       string          `json:"detector"`
	Passed         json.RawMessage `json:"passed"`
	Fails          json.RawMessage `json:"fails"`
	Nones          json.RawMessage `json:"nones"`
	TotalEvaluated json.RawMessage `json:"total_evaluated"`
	Total          json.RawMessage `json:"total"` // before 0.13
}

type garakAttempt struct {
	UUID            string                     `json:"uuid"`
	Status          int                        `json:"status"`
	Probe           string                     `json:"probe_classname"`
	DetectorResults map[string]json.RawMessage `json:"detector_results"`
}

type garakCount struct{ passed, fails, nones float64 }

// garakReader holds the state of one report while it streams by.
type garakReader struct {
	src        *source
	run        *runBuilder
	setup      map[string]json.RawMessage
	threshold  float64
	evalOrder  []string
	evals      map[string]garakEval
	evalLine   map[string]int
	attempts   map[string]*garakCount // probe \x00 detector, from status-2 attempts
	attemptKey []string
	seen       map[string]struct{} // uuids of the current probe's status-2 attempts
	lastProbe  string
	evaluated  int // status-2 attempts counted
	duplicates int
	completed  bool
	started    string
	digest     []byte // the digest row, for a report that holds only that
}

// importGarak streams a garak report (JSONL) in one pass, holding only counts
// and the uuids of evaluated attempts; a digest on its own is read whole.
func importGarak(ctx context.Context, src *source) ([]*runBuilder, error) {
	var r io.Reader = src.r
	if r == nil {
		if src.isDir {
			return nil, src.errorf(0, 0, "", "is a folder: give a garak report (*.report.jsonl)")
		}
		f, err := os.Open(src.path)
		if err != nil {
			return nil, src.errorf(0, 0, "", "%v", unwrapPathError(err))
		}
		defer f.Close()
		r = f
	}
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 1<<20)
	// A digest on its own is one pretty-printed JSON object; report rows are
	// compact, one per line, starting with {"entry_type".
	first, _ := br.Peek(64)
	if bytes.HasPrefix(first, []byte("\xef\xbb\xbf")) {
		br.Discard(3) // a byte-order mark is skipped, as every lf reader does
		first = first[3:]
	}
	if t := bytes.TrimLeft(first, " \t\r\n\ufeff"); len(t) > 1 && t[0] == '{' && t[1] != '"' {
		b, err := io.ReadAll(br)
		if err != nil {
			return nil, src.errorf(0, 0, "", "%v", err)
		}
		return garakDigestFile(src, b, hex.EncodeToString(h.Sum(nil)))
	}
	g := &garakReader{
		src: src, run: newRun("garak", ""), threshold: garakThreshold,
		evals: map[string]garakEval{}, evalLine: map[string]int{}, attempts: map[string]*garakCount{}, seen: map[string]struct{}{},
	}
	g.run.evaluation = "garak"
	var buf []byte
	lineNo := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			buf = append(buf[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if len(line) > 0 {
			lineNo++
			if lineNo%4096 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return nil, cerr
				}
			}
			if perr := g.row(bytes.TrimSpace(line), lineNo); perr != nil {
				return nil, perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, src.errorf(lineNo, 0, "", "%v", err)
		}
	}
	if lineNo == 0 {
		return nil, src.errorf(1, 1, "", "not a garak report: the file is empty")
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if g.digest != nil && g.setup == nil && g.started == "" && len(g.evals) == 0 && len(g.attempts) == 0 {
		return garakDigestFile(src, g.digest, sum)
	}
	g.run.sha256 = sum
	return g.finish()
}

// entryType reads a row's entry_type; garak writes it first.
func entryType(line []byte) (string, bool) {
	const key = `"entry_type"`
	i := bytes.Index(line[:min(len(line), 64)], []byte(key))
	if i < 0 {
		var x struct {
			EntryType *string `json:"entry_type"`
		}
		if json.Unmarshal(line, &x) != nil || x.EntryType == nil {
			return "", false
		}
		return *x.EntryType, true
	}
	rest := bytes.TrimLeft(line[i+len(key):], " ")
	if len(rest) == 0 || rest[0] != ':' {
		return "", false
	}
	rest = bytes.TrimLeft(rest[1:], " ")
	if len(rest) == 0 || rest[0] != '"' {
		return "", false
	}
	j := bytes.IndexByte(rest[1:], '"')
	if j < 0 {
		return "", false
	}
	return string(rest[1 : 1+j]), true
}

func (g *garakReader) row(line []byte, n int) error {
	if len(line) == 0 {
		return nil
	}
	if line[0] != '{' || line[len(line)-1] != '}' {
		if n == 1 {
			return g.src.errorf(n, 1, "", "not a garak report: a row is not a JSON object")
		}
		return g.src.errorf(n, len(line), "", "row is not a complete JSON object (is the report cut short?)")
	}
	et, ok := entryType(line)
	if !ok {
		if n == 1 {
			if runID, hit := garakHitlogRow(line); hit {
				return g.src.errorf(n, 1, "", "this is a garak hit log (one row per output a detector flagged, "+
					"no pass counts): import the report garak wrote beside it, %s", garakReportName(g.src.name, runID))
			}
			return g.src.errorf(n, 1, "", "not a garak report: the first row has no entry_type")
		}
		return g.src.errorf(n, 1, "/entry_type", "row has no entry_type")
	}
	if et == "attempt" {
		if len(g.evals) > 0 {
			return nil // the report has eval rows: attempts are not needed
		}
		return g.attempt(line, n)
	}
	doc := lax(line)
	switch et {
	case "start_run setup":
		if err := g.decodeRow(doc, &g.setup, n); err != nil {
			return err
		}
		if v, _, ok := num(g.setup["run.eval_threshold"]); ok {
			g.threshold = v
		}
	case "init":
		var x struct {
			Version   string `json:"garak_version"`
			StartTime string `json:"start_time"`
			Run       string `json:"run"`
		}
		if err := g.decodeRow(doc, &x, n); err != nil {
			return err
		}
		g.run.toolVersion, g.started, g.run.id = x.Version, x.StartTime, x.Run
	case "eval":
		return g.evalRow(doc, n)
	case "completion":
		g.completed = true
	case "digest":
		return g.digestRow(doc, line, n)
	default:
		if !json.Valid(doc.out) {
			return g.decodeRow(doc, new(any), n)
		}
	}
	return nil
}

// garakHitlogRow tells a row of a garak hit log (<prefix>.hitlog.jsonl):
// no entry_type, and the attempt, probe and detector of a flagged output.
func garakHitlogRow(line []byte) (runID string, ok bool) {
	var x struct {
		EntryType *string `json:"entry_type"`
		AttemptID *string `json:"attempt_id"`
		RunID     string  `json:"run_id"`
		Probe     *string `json:"probe"`
		Detector  *string `json:"detector"`
	}
	if json.Unmarshal(lax(line).out, &x) != nil {
		return "", false
	}
	return x.RunID, x.EntryType == nil && x.AttemptID != nil && x.Probe != nil && x.Detector != nil
}

// garakReportName is the report beside a hit log: garak names the two
// <prefix>.report.jsonl and <prefix>.hitlog.jsonl (the prefix is garak.<run id>
// unless --report_prefix was given).
func garakReportName(hitlog, runID string) string {
	if p, ok := strings.CutSuffix(hitlog, ".hitlog.jsonl"); ok && p != "" {
		return p + ".report.jsonl"
	}
	if runID != "" {
		return "garak." + runID + ".report.jsonl"
	}
	return "<prefix>.report.jsonl"
}

// evalRow keeps one eval row per (probe, detector): a repeated row is
// counted once, a differing one replaces the earlier with a warning.
func (g *garakReader) evalRow(doc *laxDoc, n int) error {
	var x garakEval
	if err := g.decodeRow(doc, &x, n); err != nil {
		return err
	}
	k := x.Probe + "\x00" + garakDetector(x.Detector)
	if prev, ok := g.evals[k]; ok {
		if string(prev.Passed) == string(x.Passed) && string(prev.TotalEvaluated) == string(x.TotalEvaluated) && string(prev.Total) == string(x.Total) {
			g.src.warnf(n, 1, "", "eval row for %s / %s repeats line %d: counted once", x.Probe, x.Detector, g.evalLine[k])
			return nil
		}
		g.src.warnf(n, 1, "", "eval row for %s / %s differs from line %d: the later row is kept", x.Probe, x.Detector, g.evalLine[k])
	} else {
		g.evalOrder = append(g.evalOrder, k)
	}
	g.evals[k], g.evalLine[k] = x, n
	// With eval rows the counts come from them: drop what attempts gave,
	// so memory stays flat however many attempts follow.
	if g.evaluated > 0 {
		g.seen, g.attempts, g.attemptKey, g.duplicates, g.evaluated = map[string]struct{}{}, map[string]*garakCount{}, nil, 0, 0
	}
	return nil
}

// digestRow takes the run id from the digest when init gave none and keeps
// the row. garak writes the digest once a run has ended; a report built by
// garak's aggregate_reports has the digest but no completion row.
func (g *garakReader) digestRow(doc *laxDoc, line []byte, n int) error {
	var x struct {
		Meta struct {
			RunUUID string `json:"run_uuid"`
		} `json:"meta"`
	}
	if err := g.decodeRow(doc, &x, n); err != nil {
		return err
	}
	if g.run.id == "" {
		g.run.id = x.Meta.RunUUID
	}
	g.digest = append([]byte(nil), line...)
	g.completed = true
	return nil
}

func (g *garakReader) decodeRow(doc *laxDoc, v any, n int) error {
	var fr FileReport
	tmp := &source{path: g.src.path, fr: &fr}
	if err := doc.decode(tmp, v, "garak report"); err != nil {
		d := fr.Diagnostics[0]
		return g.src.errorf(n, d.Col, d.Pointer, "%s", d.Msg)
	}
	return nil
}

// attempt counts an evaluated (status 2) attempt once per uuid, reading only
// the fields it needs; attempts are most of a report's bytes.
func (g *garakReader) attempt(line []byte, n int) error {
	if st, ok := fieldInt(line, `"status": `); ok && st != 2 {
		return nil // not evaluated yet: the status-2 row of the same attempt follows
	}
	a, ok := fastAttempt(line)
	if !ok {
		if err := json.Unmarshal(lax(line).out, &a); err != nil {
			return g.src.errorf(n, 1, "", "attempt row is not valid JSON: %v", err)
		}
	}
	if a.Status != 2 {
		return nil
	}
	if a.Probe != g.lastProbe {
		// garak evaluates probe by probe: a repeated attempt row repeats one of
		// the current probe, so the uuids of earlier probes can go.
		clear(g.seen)
		g.lastProbe = a.Probe
	}
	if _, dup := g.seen[a.UUID]; dup && a.UUID != "" {
		g.duplicates++
		return nil
	}
	g.seen[a.UUID] = struct{}{}
	g.evaluated++
	for det, raw := range a.DetectorResults {
		k := a.Probe + "\x00" + garakDetector(det)
		c := g.attempts[k]
		if c == nil {
			c = &garakCount{}
			g.attempts[k] = c
			g.attemptKey = append(g.attemptKey, k)
		}
		countScores(raw, g.threshold, c)
	}
	return nil
}

// countScores flattens a detector's scores (nested lists for intent probes).
func countScores(raw json.RawMessage, threshold float64, c *garakCount) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for _, x := range list {
			countScores(x, threshold, c)
		}
		return
	}
	v, _, ok := num(raw)
	switch {
	case !ok:
		c.nones++
	case v < threshold:
		c.passed++
	default:
		c.fails++
	}
}

// fieldInt reads the first integer value after key (a top-level key written
// before any nested object in garak rows).
func fieldInt(line []byte, key string) (int, bool) {
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(line[i+len(key):], " ")
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	v, err := strconv.Atoi(string(rest[:j]))
	return v, err == nil
}

// garakDetector strips the prefixes older garak versions and attempt rows add.
func garakDetector(d string) string {
	d = strings.TrimPrefix(d, "garak.detectors.")
	return strings.TrimPrefix(d, "detector.")
}

func (g *garakReader) finish() ([]*runBuilder, error) {
	run := g.run
	if g.setup != nil {
		var ver string
		_ = json.Unmarshal(g.setup["_config.version"], &ver)
		if run.toolVersion == "" {
			run.toolVersion = ver
		}
		if run.id == "" {
			_ = json.Unmarshal(g.setup["transient.run_id"], &run.id)
		}
		if g.started == "" {
			_ = json.Unmarshal(g.setup["transient.starttime_iso"], &g.started)
		}
		for _, k := range []string{"plugins.probe_spec", "plugins.target_type", "plugins.target_name", "plugins.model_type", "plugins.model_name"} {
			var s string
			if json.Unmarshal(g.setup[k], &s) == nil && s != "" {
				name := strings.Replace(strings.TrimPrefix(k, "plugins."), "model_", "target_", 1)
				if _, ok := run.meta[name]; !ok {
					run.meta[name] = s
				}
			}
		}
	}
	if run.id == "" {
		return nil, g.src.errorf(1, 1, "", "not a garak report: no init row or run id")
	}
	t, naive, err := parseNaiveTime(g.started)
	if err != nil {
		return nil, g.src.errorf(0, 0, "", "no start time in the init row: %v", err)
	}
	if naive {
		run.meta["created_at_time_zone"] = "assumed UTC (garak writes local time without a zone)"
	}
	run.createdAt = t
	run.meta["eval_threshold"] = g.threshold
	if g.duplicates > 0 {
		g.src.warnf(0, 0, "", "%d evaluated attempt rows repeat an earlier uuid: counted once", g.duplicates)
	}
	if len(g.evals) > 0 {
		for _, k := range g.evalOrder {
			x := g.evals[k]
			probe, det, _ := strings.Cut(k, "\x00")
			g.addCounts(probe, det, x)
		}
	} else if len(g.attempts) > 0 {
		run.note("no eval rows: counts recomputed from %d evaluated attempts (score < %g passes)", g.evaluated, g.threshold)
		for _, k := range g.attemptKey {
			c := g.attempts[k]
			probe, det, _ := strings.Cut(k, "\x00")
			g.addRates(probe, det, c.passed, c.fails, c.nones, c.passed+c.fails)
		}
	}
	if g.completed {
		run.status = model.StatusCompleted
	} else {
		run.status = model.StatusRunning
		run.note("no completion row: the run had not finished when the report was written")
	}
	return []*runBuilder{run}, nil
}

func (g *garakReader) addCounts(probe, det string, x garakEval) {
	passed, _, _ := num(x.Passed)
	if len(x.TotalEvaluated) > 0 {
		total, _, _ := num(x.TotalEvaluated)
		fails, _, okF := num(x.Fails)
		if !okF {
			fails = total - passed
		}
		nones, _, _ := num(x.Nones)
		g.addRates(probe, det, passed, fails, nones, total)
		return
	}
	total, _, _ := num(x.Total) // before 0.13: passed of total
	g.addRates(probe, det, passed, total-passed, 0, total)
}

func (g *garakReader) addRates(probe, det string, passed, fails, nones, total float64) {
	ms := []metricVal{{"passed", passed}, {"fails", fails}, {"nones", nones}, {"total", total}}
	if total > 0 {
		ms = append(ms, metricVal{"pass_rate", passed / total}, metricVal{"attack_success_rate", fails / total})
	} else {
		g.src.skip(0, 0, "", "%s / %s: 0 outputs evaluated, so pass_rate and attack_success_rate are not stored", probe, det)
	}
	g.run.add(probe, det, ms)
}

// garakDigestFile imports a digest on its own: detector scores per probe.
func garakDigestFile(src *source, b []byte, sum string) ([]*runBuilder, error) {
	doc := lax(b)
	var x struct {
		EntryType string `json:"entry_type"`
		Meta      struct {
			RunUUID      string `json:"run_uuid"`
			StartTime    string `json:"start_time"`
			GarakVersion string `json:"garak_version"`
			ProbeSpec    string `json:"probespec"`
			TargetType   string `json:"target_type"`
			TargetName   string `json:"target_name"`
		} `json:"meta"`
		Eval map[string]map[string]json.RawMessage `json:"eval"`
	}
	if err := doc.decode(src, &x, "garak digest"); err != nil {
		return nil, err
	}
	if x.EntryType != "digest" || x.Meta.RunUUID == "" {
		return nil, src.errorf(1, 1, "/entry_type", "not a garak digest: want entry_type \"digest\" with meta.run_uuid")
	}
	run := newRun("garak", sum)
	run.evaluation, run.id, run.toolVersion = "garak", x.Meta.RunUUID, x.Meta.GarakVersion
	t, naive, err := parseNaiveTime(x.Meta.StartTime)
	if err != nil {
		return nil, src.errorf(0, 0, "/meta/start_time", "%v", err)
	}
	if naive {
		run.meta["created_at_time_zone"] = "assumed UTC (garak writes local time without a zone)"
	}
	run.createdAt = t
	for k, v := range map[string]string{"probe_spec": x.Meta.ProbeSpec, "target_type": x.Meta.TargetType, "target_name": x.Meta.TargetName} {
		if v != "" {
			run.meta[k] = v
		}
	}
	run.note("imported from a digest: pass_rate is the detector's absolute_score")
	d := &garakDigest{src: src, run: run, seen: map[string]bool{}}
	groupScores := map[string]any{}
	for _, group := range slices.Sorted(maps.Keys(x.Eval)) {
		probes := x.Eval[group]
		for _, probe := range slices.Sorted(maps.Keys(probes)) {
			if probe == "_summary" {
				if v, ok := garakGroupScore(probes[probe]); ok {
					groupScores[group] = v
				}
				continue
			}
			d.probe(group, probe, probes[probe])
		}
	}
	d.warn()
	if len(groupScores) > 0 {
		run.meta["group_scores"] = groupScores
	}
	return []*runBuilder{run}, nil
}

// garakGroupScore reads a probe group's _summary score.
func garakGroupScore(raw json.RawMessage) (float64, bool) {
	var s struct {
		Score json.RawMessage `json:"score"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	v, _, ok := num(s.Score)
	return v, ok
}

// garakDigest reads the probes of a digest. With a taxonomy (garak
// --taxonomy owasp), a probe is listed under each group its tags name: the
// same probe and detector then appear several times, and are read, and
// counted in the warnings, once.
type garakDigest struct {
	src  *source
	run  *runBuilder
	seen map[string]bool // probe \x00 detector already read
	// relative scores that were not numbers ("n/a"): from uncalibrated runs,
	// and from calibrated runs whose calibration has no data for the pair
	noRelUncalibrated, noRelNoData int
}

// probe adds one result per detector of a probe (pass_rate is the absolute
// score) and counts the relative scores it could not store.
func (d *garakDigest) probe(group, probe string, raw json.RawMessage) {
	var dets map[string]json.RawMessage
	if json.Unmarshal(raw, &dets) != nil {
		d.src.skip(0, 0, fmt.Sprintf("/eval/%s/%s", ptrEscape(group), ptrEscape(probe)), "probe %s dropped: not an object of detectors", probe)
		return
	}
	for _, det := range slices.Sorted(maps.Keys(dets)) {
		if det == "_summary" {
			continue
		}
		key := probe + "\x00" + garakDetector(det)
		if d.seen[key] {
			continue // the same pair under another taxonomy group
		}
		d.seen[key] = true
		var x struct {
			AbsoluteScore   json.RawMessage `json:"absolute_score"`
			AbsoluteDefcon  json.RawMessage `json:"absolute_defcon"`
			RelativeScore   json.RawMessage `json:"relative_score"`
			CalibrationUsed json.RawMessage `json:"calibration_used"`
		}
		ptr := fmt.Sprintf("/eval/%s/%s/%s", ptrEscape(group), ptrEscape(probe), ptrEscape(det))
		if json.Unmarshal(dets[det], &x) != nil {
			d.src.skip(0, 0, ptr, "detector %s of %s dropped: not an object with absolute_score", det, probe)
			continue
		}
		abs, why, ok := num(x.AbsoluteScore)
		if !ok {
			d.src.skip(0, 0, ptr+"/absolute_score", "absolute_score dropped: %s", why)
			continue
		}
		ms := []metricVal{{"pass_rate", abs}, {"attack_success_rate", 1 - abs}}
		if v, _, ok := num(x.AbsoluteDefcon); ok {
			ms = append(ms, metricVal{"defcon", v})
		}
		if v, _, ok := num(x.RelativeScore); ok {
			ms = append(ms, metricVal{"relative_score", v})
		} else if len(x.RelativeScore) > 0 && string(x.RelativeScore) != "null" {
			d.src.skipped++
			if string(bytes.TrimSpace(x.CalibrationUsed)) == "true" {
				d.noRelNoData++
			} else {
				d.noRelUncalibrated++
			}
		}
		d.run.add(probe, garakDetector(det), ms)
	}
}

// warn says, once each, how many relative scores were not stored and why.
func (d *garakDigest) warn() {
	if n := d.noRelUncalibrated; n > 0 {
		d.src.warnf(0, 0, "", "relative_score of %s not stored: \"n/a\" (the run was not calibrated)", diag.Count(n, "probe/detector pair", "probe/detector pairs"))
	}
	if n := d.noRelNoData; n > 0 {
		d.src.warnf(0, 0, "", "relative_score of %s not stored: \"n/a\" (garak's calibration has no data for them)", diag.Count(n, "probe/detector pair", "probe/detector pairs"))
	}
}

// fastAttempt reads uuid, status, probe_classname and detector_results of an
// attempt row without decoding its prompt and outputs (most of its bytes).
// Keys are found as `"key": ` with unescaped quotes, which cannot occur inside
// a JSON string; ok is false when a field is missing or unreadable, and the
// caller then decodes the whole row.
func fastAttempt(line []byte) (a garakAttempt, ok bool) {
	st, ok := fieldInt(line, `"status": `)
	if !ok {
		return a, false
	}
	a.Status = st
	if a.UUID, ok = fieldString(line, `"uuid": "`); !ok {
		return a, false
	}
	if a.Probe, ok = fieldString(line, `"probe_classname": "`); !ok {
		return a, false
	}
	i := bytes.Index(line, []byte(`"detector_results": `))
	if i < 0 {
		return a, false
	}
	obj := balanced(line[i+len(`"detector_results": `):])
	if obj == nil || json.Unmarshal(obj, &a.DetectorResults) != nil {
		return a, false
	}
	return a, true
}

// fieldString reads the string after key (which ends with the opening quote);
// it gives up on escapes, which garak's uuids and class names never hold.
func fieldString(line []byte, key string) (string, bool) {
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return "", false
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return "", false
	}
	return string(rest[:j]), true
}

// balanced returns the JSON object or array b starts with, or nil.
func balanced(b []byte) []byte {
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return nil
	}
	if e := jsonlex.SkimValue(b, 0); e > 0 {
		return b[:e]
	}
	return nil
}
