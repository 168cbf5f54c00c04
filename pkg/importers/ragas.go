package importers

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/diag"
)

// ragasInputColumns are the sample columns of a RAGAS evaluation result
// (EvaluationDataset: SingleTurnSample and MultiTurnSample fields, and the
// question/contexts/answer/ground_truth names of ragas before 0.2): they
// describe a sample and are never metrics.
var ragasInputColumns = map[string]bool{
	"user_input": true, "retrieved_contexts": true, "reference_contexts": true, "retrieved_context_ids": true,
	"reference_context_ids": true, "response": true, "multi_responses": true, "reference": true, "rubrics": true,
	"persona_name": true, "query_style": true, "query_length": true, "reference_tool_calls": true, "reference_topics": true,
	"question": true, "contexts": true, "answer": true, "ground_truth": true, "ground_truths": true,
}

// ragasMetricNames are names RAGAS gives its metrics; detection uses them to
// tell a RAGAS result from other tables.
var ragasMetricNames = map[string]bool{
	"faithfulness": true, "answer_relevancy": true, "context_precision": true, "context_recall": true,
	"context_entity_recall": true, "answer_correctness": true, "answer_similarity": true, "semantic_similarity": true,
	"factual_correctness": true, "noise_sensitivity": true, "noise_sensitivity_relevant": true, "noise_sensitivity_irrelevant": true,
	"context_utilization": true, "llm_context_precision_with_reference": true, "llm_context_precision_without_reference": true,
	"non_llm_context_precision_with_reference": true, "non_llm_context_recall": true, "id_based_context_precision": true,
	"id_based_context_recall": true, "context_relevance": true, "context_relevancy": true, "response_groundedness": true,
	"answer_accuracy": true, "nv_accuracy": true, "nv_context_relevance": true, "nv_response_groundedness": true,
	"harmfulness": true, "maliciousness": true, "coherence": true, "correctness": true, "conciseness": true,
	"summary_score": true, "bleu_score": true, "rouge_score": true, "chrf_score": true, "exact_match": true,
	"string_present": true, "tool_call_accuracy": true, "tool_call_f1": true, "agent_goal_accuracy": true,
	"topic_adherence": true, "simple_criteria_score": true, "instance_rubrics": true, "domain_specific_rubrics": true,
}

// looksRAGAS tells the columns of a RAGAS result: two sample columns, or a
// sample column and a metric, or only RAGAS metric names (a scores list or
// the means).
func looksRAGAS(cols []string) bool {
	inputs, metrics, named := 0, 0, 0
	for _, c := range cols {
		if isIDColumn(c) {
			continue
		}
		named++
		switch {
		case ragasInputColumns[c]:
			inputs++
		case ragasMetricNames[c]:
			metrics++
		}
	}
	return inputs >= 2 || (inputs >= 1 && metrics >= 1) || (metrics > 0 && metrics == named)
}

// detectRAGASCSV tells a CSV written from a RAGAS result by its header.
func detectRAGASCSV(b []byte) bool {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	if !bytes.Contains(line, []byte(",")) {
		return false
	}
	header, err := csv.NewReader(bytes.NewReader(line)).Read()
	return err == nil && looksRAGAS(header)
}

type cellKind int

const (
	cellNum     cellKind = iota // a finite number
	cellMissing                 // empty, null, NaN or infinite: a metric value that could not be computed
	cellText                    // anything else: the column is not a metric
)

type ragasCell struct {
	kind      cellKind
	v         float64
	why       string
	line, col int    // CSV
	ptr       string // JSON
	text      string // CSV text, or the JSON string value
}

// ragasTable is a RAGAS result whatever its file layout: the columns in
// file order and one row per sample.
type ragasTable struct {
	layout  string
	columns []string
	rows    []map[string]ragasCell
}

// importRAGAS reads a RAGAS evaluation result: EvaluationResult.to_pandas()
// written with to_csv, or to_json in the records or columns orientation (and
// result.scores, a records list of the metrics only), or the means
// ({"faithfulness": 0.8, ...}). Each sample is a result (task: its id or
// sample-<n>, scorer: ragas) holding every metric column.
func importRAGAS(src *source, b []byte, sum string) ([]*runBuilder, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var tab *ragasTable
	var err error
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		tab, err = ragasJSON(src, b)
	} else {
		tab, err = ragasCSV(src, b)
	}
	if err != nil {
		return nil, err
	}
	run := newRun("ragas", sum)
	run.evaluation, run.id = "ragas", "ragas-"+sum[:16]
	run.meta["layout"] = tab.layout
	run.meta["samples"] = len(tab.rows)
	metrics, other := ragasColumns(tab)
	if len(metrics) == 0 {
		return nil, src.errorf(1, 1, "", "no metric column in this RAGAS result: every column holds text or is a sample column (%s)", strings.Join(tab.columns, ", "))
	}
	if len(other) > 0 {
		run.meta["other_columns"] = toAny(other)
	}
	tasks := ragasTasks(tab)
	missing := map[string][]ragasCell{}
	for i, row := range tab.rows {
		var ms []metricVal
		for _, m := range metrics {
			c := row[m]
			if c.kind == cellNum {
				ms = append(ms, metricVal{m, c.v})
				continue
			}
			missing[m] = append(missing[m], c)
		}
		if len(ms) > 0 {
			run.add(tasks[i], "ragas", ms)
		}
	}
	for _, m := range metrics {
		ragasWarnMissing(src, tasks, tab, m, missing[m])
	}
	if err := ragasTime(src, run); err != nil {
		return nil, err
	}
	return []*runBuilder{run}, nil
}

// ragasColumns splits the columns into metrics (every cell a number, empty,
// NaN or null) and others (text that is not a sample column, such as an
// experiment's own fields), skipping the sample and id columns.
func ragasColumns(tab *ragasTable) (metrics, other []string) {
	for _, col := range tab.columns {
		if ragasInputColumns[col] || isIDColumn(col) {
			continue
		}
		metric := true
		for _, row := range tab.rows {
			if row[col].kind == cellText {
				metric = false
				break
			}
		}
		if metric {
			metrics = append(metrics, col)
		} else {
			other = append(other, col)
		}
	}
	return metrics, other
}

// isIDColumn tells the columns that name a sample: an experiment's id, and
// the index pandas writes unnamed ("" in CSV, "Unnamed: 0" once read back).
func isIDColumn(col string) bool {
	return col == "id" || col == "" || col == "Unnamed: 0"
}

// ragasTasks names each sample: its id when every sample has a distinct one,
// else sample-<n>, n being the pandas index when the file has it or the
// sample's position (from 0, the order of the evaluation dataset).
func ragasTasks(tab *ragasTable) []string {
	tasks := make([]string, len(tab.rows))
	for _, col := range []string{"id", "", "Unnamed: 0"} {
		if !slices.Contains(tab.columns, col) {
			continue
		}
		seen := map[string]bool{}
		ok := true
		for i, row := range tab.rows {
			c := row[col]
			v := c.text
			if c.kind == cellNum {
				v = strconv.FormatFloat(c.v, 'f', -1, 64)
			}
			if v == "" || seen[v] {
				ok = false
				break
			}
			seen[v] = true
			tasks[i] = v
			if col != "id" && c.kind == cellNum {
				tasks[i] = "sample-" + v // pandas' default index; a labelled index is its own name
			}
		}
		if ok {
			return tasks
		}
	}
	for i := range tasks {
		tasks[i] = fmt.Sprintf("sample-%d", i)
	}
	return tasks
}

// ragasWarnMissing says, once per metric, which samples have no value for it
// (ragas writes NaN when a metric could not be computed for a sample).
func ragasWarnMissing(src *source, tasks []string, tab *ragasTable, metric string, cells []ragasCell) {
	if len(cells) == 0 {
		return
	}
	src.skipped += len(cells)
	var names []string
	for i, row := range tab.rows {
		if row[metric].kind == cellMissing && len(names) < 5 {
			names = append(names, tasks[i])
		}
	}
	more := ""
	if len(cells) > len(names) {
		more = fmt.Sprintf(" and %d more", len(cells)-len(names))
	}
	first := cells[0]
	src.warnf(first.line, first.col, first.ptr, "%s: %s not stored (%s; ragas writes NaN when a metric could not be computed): %s%s",
		metric, diag.Count(len(cells), "value", "values"), first.why, strings.Join(names, ", "), more)
}

func ragasCSV(src *source, b []byte) (*ragasTable, error) {
	r := csv.NewReader(bytes.NewReader(b))
	header, err := r.Read()
	if err != nil {
		return nil, ragasCSVError(src, err)
	}
	tab := &ragasTable{layout: "csv", columns: header}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, ragasCSVError(src, err)
		}
		if len(rec) != len(header) {
			line, _ := r.FieldPos(0)
			return nil, src.errorf(line, 1, "", "row has %d fields, the header %d: not a complete CSV table", len(rec), len(header))
		}
		row := make(map[string]ragasCell, len(rec))
		for i, text := range rec {
			line, col := r.FieldPos(i)
			c := csvCell(text)
			c.line, c.col = line, col
			row[header[i]] = c
		}
		tab.rows = append(tab.rows, row)
	}
	if len(tab.rows) == 0 {
		return nil, src.errorf(1, 1, "", "a RAGAS result with a header and no sample")
	}
	return tab, nil
}

func ragasCSVError(src *source, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return src.errorf(pe.Line, pe.Column, "", "not a valid CSV table: %v", pe.Err)
	}
	return src.errorf(1, 1, "", "not a valid CSV table: %v", err)
}

// csvCell reads a value as pandas writes it: numbers in Python's notation
// (nan, inf), NaN as an empty field.
func csvCell(text string) ragasCell {
	c := ragasCell{text: text}
	t := strings.TrimSpace(text)
	if t == "" {
		c.kind, c.why = cellMissing, "empty"
		return c
	}
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		c.kind = cellText
	case math.IsNaN(v) || math.IsInf(v, 0):
		c.kind, c.why = cellMissing, "non-finite value "+t
	default:
		c.kind, c.v = cellNum, v
	}
	return c
}

// ragasJSON reads the JSON layouts: records ([{column: value}]), columns
// ({column: {index: value}}, pandas' default), or the means ({metric: value}).
// Bare NaN (json.dump of records) is read as missing; the one warning per
// metric names the samples, so the tokens get no warning of their own.
func ragasJSON(src *source, b []byte) (*ragasTable, error) {
	doc := lax(b)
	t := bytes.TrimLeft(b, " \t\r\n")
	if t[0] == '[' {
		var records []map[string]json.RawMessage
		if err := doc.decode(src, &records, "RAGAS result (records)"); err != nil {
			return nil, err
		}
		tab := &ragasTable{layout: "records"}
		cols := map[string]bool{}
		for i, rec := range records {
			row := map[string]ragasCell{}
			for _, k := range slices.Sorted(maps.Keys(rec)) {
				if !cols[k] {
					cols[k] = true
					tab.columns = append(tab.columns, k)
				}
				row[k] = jsonCell(rec[k], fmt.Sprintf("/%d/%s", i, ptrEscape(k)))
			}
			tab.rows = append(tab.rows, row)
		}
		return ragasNonEmpty(src, tab)
	}
	var obj map[string]json.RawMessage
	if err := doc.decode(src, &obj, "RAGAS result"); err != nil {
		return nil, err
	}
	columns := slices.Sorted(maps.Keys(obj))
	byCol := map[string]map[string]json.RawMessage{}
	for _, k := range columns {
		var m map[string]json.RawMessage
		if json.Unmarshal(obj[k], &m) != nil {
			return ragasMeans(src, obj, columns)
		}
		byCol[k] = m
	}
	tab := &ragasTable{layout: "columns", columns: columns}
	var index []string
	for _, k := range columns {
		for i := range byCol[k] {
			if !slices.Contains(index, i) {
				index = append(index, i)
			}
		}
	}
	slices.SortFunc(index, func(a, b string) int {
		x, errA := strconv.Atoi(a)
		y, errB := strconv.Atoi(b)
		if errA == nil && errB == nil {
			return x - y
		}
		return strings.Compare(a, b)
	})
	tab.columns = append([]string{""}, columns...)
	for _, i := range index {
		row := map[string]ragasCell{"": csvCell(i)} // the index: 0, 1, ... or labels
		for _, k := range columns {
			raw, ok := byCol[k][i]
			if !ok {
				raw = json.RawMessage("null")
			}
			row[k] = jsonCell(raw, "/"+ptrEscape(k)+"/"+ptrEscape(i))
		}
		tab.rows = append(tab.rows, row)
	}
	return ragasNonEmpty(src, tab)
}

// ragasMeans reads {metric: mean}: one result, task "mean".
func ragasMeans(src *source, obj map[string]json.RawMessage, columns []string) (*ragasTable, error) {
	tab := &ragasTable{layout: "means", columns: append([]string{"id"}, columns...)}
	row := map[string]ragasCell{"id": {kind: cellText, text: "mean"}}
	for _, k := range columns {
		row[k] = jsonCell(obj[k], "/"+ptrEscape(k))
	}
	tab.rows = append(tab.rows, row)
	return tab, nil
}

func ragasNonEmpty(src *source, tab *ragasTable) (*ragasTable, error) {
	if len(tab.rows) == 0 {
		return nil, src.errorf(1, 1, "", "a RAGAS result without a sample")
	}
	return tab, nil
}

func jsonCell(raw json.RawMessage, ptr string) ragasCell {
	c := ragasCell{ptr: ptr}
	v, why, ok := num(raw)
	t := bytes.TrimSpace(raw)
	switch {
	case ok:
		c.kind, c.v = cellNum, v
	case len(t) == 0 || string(t) == "null" || strings.HasPrefix(why, "non-finite"):
		c.kind, c.why = cellMissing, why
	default:
		c.kind = cellText
		_ = json.Unmarshal(t, &c.text)
	}
	return c
}

// ragasTime: a RAGAS result holds no time; the file's modification time is
// the run's, marked as inferred.
func ragasTime(src *source, run *runBuilder) error {
	if src.r == nil {
		if st, err := os.Stat(src.path); err == nil {
			run.createdAt = st.ModTime().UTC().Truncate(time.Second)
			run.meta["created_at_inferred"] = "file modification time (a RAGAS result holds no time stamp)"
			return nil
		}
	}
	return src.errorf(0, 0, "", "a RAGAS result holds no time stamp: give the file (its modification time is the run's time), not standard input")
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
