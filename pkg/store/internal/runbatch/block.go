package runbatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// A block is the metric values of a streamed run (or of a part of one) in
// one blob, a row of run_value_blocks (migration 80): the run's tasks once,
// then each metric's values as (task number, value). A recorded scan of
// 23,000 traces has 267,300 values; as rows of metric_values (app,
// evaluation key, run id, metric, task and scorer repeated on every row,
// about 130 bytes) SQLite spent about 4 µs of CPU on each, as a block about
// 12 bytes each and no B-tree insert per value. Readers (Values, Run, the
// run list's counts) decode blocks and give the same values in the same
// order as rows of metric_values.
//
// Layout (integers are unsigned varints, strings a length and the bytes):
//
//	version (1)
//	scorers: count, then each name
//	tasks: count, then each task key and its scorer's number,
//	       sorted by task key and scorer, each pair once
//	metrics: count, then each in name order: name, byte length of the rest
//	         of its section, count, then each value: the distance of its
//	         task's number from the previous value's (the first from -1),
//	         doubled, plus 1 when a varint of the value follows (a whole
//	         number from 0 to 2^31-1), else the 8 bytes of the float64,
//	         little-endian
const blockVersion = 1

// ErrDuplicate is a task, scorer and metric given twice in one run (the
// primary key of metric_values refuses it too).
var ErrDuplicate = errors.New("duplicate metric value")

// Block encodes the held values as one block and returns it with the number
// of values; the held values stay (Reset forgets them). A task, scorer and
// metric given twice is an error. With more set, further blocks of the same
// run will follow: their (task, scorer) pairs are checked against this
// block's, so that a repeat across blocks is refused as well.
func (h *Held) Block(more bool) ([]byte, int, error) {
	groups, groupOf := h.groups()
	if err := h.checkSeen(groups, more); err != nil {
		return nil, 0, err
	}
	size := 64 + h.n*(binary.MaxVarintLen32+8) // at most
	for _, i := range groups {
		size += len(h.tasks[i].task) + 2*binary.MaxVarintLen32
	}
	buf := make([]byte, 0, size)
	buf = append(buf, blockVersion)
	buf = h.appendTasks(buf, groups)
	h.sortMetrics()
	buf = binary.AppendUvarint(buf, uint64(len(h.byMetric)))
	last := make([]int32, len(groups)) // the metric (+1) that last set each group
	var section []byte
	for _, k := range h.byMetric {
		section = section[:0]
		prev := -1
		for g := range groups {
			last[g] = 0
		}
		// A metric's cells are in input order; place them by group.
		vals := h.scatter(k, groupOf, last)
		if vals == nil {
			t := h.tasks[h.dupOf]
			return nil, 0, fmt.Errorf("%w: task %s, scorer %s, metric %s given twice", ErrDuplicate, t.task, t.scorer, h.names[k])
		}
		n := 0
		for g := range groups {
			if last[g] == 0 {
				continue
			}
			section = appendValue(section, g-prev, vals[g])
			prev = g
			n++
		}
		buf = appendString(buf, h.names[k])
		count := binary.AppendUvarint(nil, uint64(n))
		buf = binary.AppendUvarint(buf, uint64(len(count)+len(section)))
		buf = append(buf, count...)
		buf = append(buf, section...)
	}
	return buf, h.n, nil
}

// scatter places metric k's values by group in h.vals, marking each group
// set in last; nil (with h.dupOf) when a group gets two values.
func (h *Held) scatter(k int, groupOf []int32, last []int32) []float64 {
	h.vals = slices.Grow(h.vals[:0], len(last))[:len(last)]
	for _, chunk := range h.cells[k].chunks {
		for _, c := range chunk {
			g := groupOf[c.result]
			if last[g] != 0 {
				h.dupOf = c.result
				return nil
			}
			last[g] = 1
			h.vals[g] = c.value
		}
	}
	return h.vals
}

// groups sorts the held results by task and scorer and numbers each
// distinct pair: groups holds a result of each pair, groupOf the pair's
// number of every result.
func (h *Held) groups() (groups []int32, groupOf []int32) {
	h.sortTasks()
	groupOf = make([]int32, len(h.tasks))
	for _, i := range h.byTask {
		if n := len(groups); n == 0 || h.tasks[groups[n-1]] != h.tasks[i] {
			groups = append(groups, i)
		}
		groupOf[i] = int32(len(groups) - 1)
	}
	return groups, groupOf
}

// checkSeen refuses a (task, scorer) pair an earlier block of the run had,
// and remembers this block's pairs when more blocks follow. (Within a block
// a pair may come back with other metrics, as rows of metric_values may.)
func (h *Held) checkSeen(groups []int32, more bool) error {
	if h.seen == nil && !more {
		return nil
	}
	if h.seen == nil {
		h.seen, h.seed = map[uint64]struct{}{}, maphash.MakeSeed()
	}
	for _, i := range groups {
		t := h.tasks[i]
		sum := maphash.String(h.seed, t.task+"\x00"+t.scorer)
		if _, ok := h.seen[sum]; ok {
			return fmt.Errorf("%w: task %s, scorer %s given again after the run's first %d values", ErrDuplicate, t.task, t.scorer, h.spilled)
		}
		if more {
			h.seen[sum] = struct{}{}
		}
	}
	if more {
		h.spilled += h.n
	}
	return nil
}

// appendTasks appends the scorer and task tables of groups.
func (h *Held) appendTasks(buf []byte, groups []int32) []byte {
	scorers := map[string]int{}
	var names []string
	for _, i := range groups {
		if _, ok := scorers[h.tasks[i].scorer]; !ok {
			scorers[h.tasks[i].scorer] = len(names)
			names = append(names, h.tasks[i].scorer)
		}
	}
	buf = binary.AppendUvarint(buf, uint64(len(names)))
	for _, s := range names {
		buf = appendString(buf, s)
	}
	buf = binary.AppendUvarint(buf, uint64(len(groups)))
	for _, i := range groups {
		buf = appendString(buf, h.tasks[i].task)
		buf = binary.AppendUvarint(buf, uint64(scorers[h.tasks[i].scorer]))
	}
	return buf
}

// sortMetrics puts the numbers of the metrics with values in h.byMetric, by
// name.
func (h *Held) sortMetrics() {
	h.byMetric = h.byMetric[:0]
	for k := range h.names {
		if h.cells[k].n > 0 {
			h.byMetric = append(h.byMetric, k)
		}
	}
	slices.SortFunc(h.byMetric, func(a, b int) int { return strings.Compare(h.names[a], h.names[b]) })
}

// appendValue appends a value and the distance of its task's number from
// the previous value's: a whole number from 0 to 2^31-1 (counts, flags and
// rates of 0 or 1, most of a scan's values) as a varint, any other float64
// as its 8 bytes; the lowest bit of the distance tells which.
func appendValue(buf []byte, distance int, v float64) []byte {
	if v >= 0 && v <= math.MaxInt32 && v == math.Trunc(v) && !math.Signbit(v) {
		buf = binary.AppendUvarint(buf, uint64(distance)<<1|1)
		return binary.AppendUvarint(buf, uint64(v))
	}
	buf = binary.AppendUvarint(buf, uint64(distance)<<1)
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// Value is one metric value of a run with its task, scorer and metric.
type Value struct {
	Task, Scorer, Metric string
	Value                float64
}

// decoded is a block read back: its tasks and scorers, and where each
// metric's section starts.
type decoded struct {
	text     string // the block as a string: task and scorer names are views into it
	tasks    []string
	scorerOf []int32
	scorers  []string
	metrics  []string
	sections []string // by metric: count and values
}

var errBadBlock = errors.New("store: malformed run value block")

// reader reads a block's varints and strings.
type reader struct {
	s   string
	err error
}

func (r *reader) uvarint() int {
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		if len(r.s) == 0 {
			r.err = errBadBlock
			return 0
		}
		b := r.s[0]
		r.s = r.s[1:]
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			if x > math.MaxInt32 {
				r.err = errBadBlock
				return 0
			}
			return int(x)
		}
	}
	r.err = errBadBlock
	return 0
}

func (r *reader) str() string {
	n := r.uvarint()
	if r.err != nil || n > len(r.s) {
		r.err = errBadBlock
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

func (r *reader) float() float64 {
	if len(r.s) < 8 {
		r.err = errBadBlock
		return 0
	}
	var b [8]byte
	copy(b[:], r.s[:8])
	r.s = r.s[8:]
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

// decode reads the tables of a block and finds its metric sections.
func decode(data []byte) (*decoded, error) {
	d := &decoded{text: string(data)}
	r := &reader{s: d.text}
	if len(r.s) == 0 || r.s[0] != blockVersion {
		return nil, errBadBlock
	}
	r.s = r.s[1:]
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		d.scorers = append(d.scorers, r.str())
	}
	nt := r.uvarint()
	for i := 0; i < nt && r.err == nil; i++ {
		d.tasks = append(d.tasks, r.str())
		s := r.uvarint()
		if s >= len(d.scorers) {
			return nil, errBadBlock
		}
		d.scorerOf = append(d.scorerOf, int32(s))
	}
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		d.metrics = append(d.metrics, r.str())
		d.sections = append(d.sections, r.str())
	}
	if r.err != nil || len(r.s) != 0 {
		return nil, errBadBlock
	}
	return d, nil
}

// each calls fn with the task number and value of every value of metric
// section i, in task order.
func (d *decoded) each(i int, fn func(task int, v float64)) error {
	r := &reader{s: d.sections[i]}
	task := -1
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		step := r.uvarint()
		task += step >> 1
		var v float64
		if step&1 == 1 {
			v = float64(r.uvarint())
		} else {
			v = r.float()
		}
		if r.err == nil && (task < 0 || task >= len(d.tasks)) {
			return errBadBlock
		}
		fn(task, v)
	}
	if r.err != nil || len(r.s) != 0 {
		return errBadBlock
	}
	return nil
}

// AppendMetricValues appends to out the values of metric held in blocks and
// returns them ordered by task and scorer, as metric_values' primary key
// orders a run's values of one metric (out's own values are ordered with
// them).
func AppendMetricValues(out []model.MetricValue, blocks [][]byte, metric string) ([]model.MetricValue, error) {
	had := len(out)
	for _, b := range blocks {
		d, err := decode(b)
		if err != nil {
			return nil, err
		}
		i := slices.Index(d.metrics, metric)
		if i < 0 {
			continue
		}
		if err := d.each(i, func(t int, v float64) {
			out = append(out, model.MetricValue{TaskSpecificationKey: d.tasks[t], ScorerKey: d.scorers[d.scorerOf[t]], Value: v})
		}); err != nil {
			return nil, err
		}
	}
	if (had > 0 && len(out) > had) || len(blocks) > 1 {
		slices.SortStableFunc(out, func(a, b model.MetricValue) int {
			if c := strings.Compare(a.TaskSpecificationKey, b.TaskSpecificationKey); c != 0 {
				return c
			}
			return strings.Compare(a.ScorerKey, b.ScorerKey)
		})
	}
	return out, nil
}

// AppendValues appends to out every value held in blocks and returns them
// ordered by task, scorer and metric, as a run's values are read back from
// metric_values (out's own values are ordered with them).
func AppendValues(out []Value, blocks [][]byte) ([]Value, error) {
	for _, b := range blocks {
		d, err := decode(b)
		if err != nil {
			return nil, err
		}
		for i, m := range d.metrics {
			if err := d.each(i, func(t int, v float64) {
				out = append(out, Value{Task: d.tasks[t], Scorer: d.scorers[d.scorerOf[t]], Metric: m, Value: v})
			}); err != nil {
				return nil, err
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Value) int {
		if c := strings.Compare(a.Task, b.Task); c != 0 {
			return c
		}
		if c := strings.Compare(a.Scorer, b.Scorer); c != 0 {
			return c
		}
		return strings.Compare(a.Metric, b.Metric)
	})
	return out, nil
}

// ValueRows reads values as a query's rows of (task, scorer, metric,
// value), what sqlstore.Run takes.
type ValueRows struct {
	Values []Value
	i      int
}

// Next moves to the next row.
func (r *ValueRows) Next() bool {
	if r.i >= len(r.Values) {
		return false
	}
	r.i++
	return true
}

// Scan copies the row into *string, *string, *string, *float64.
func (r *ValueRows) Scan(dest ...any) error {
	if len(dest) != 4 {
		return fmt.Errorf("store: scan of a run's values into %d destinations", len(dest))
	}
	v := &r.Values[r.i-1]
	t, ok1 := dest[0].(*string)
	s, ok2 := dest[1].(*string)
	m, ok3 := dest[2].(*string)
	f, ok4 := dest[3].(*float64)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return fmt.Errorf("store: scan of a run's values into destinations of other types")
	}
	*t, *s, *m, *f = v.Task, v.Scorer, v.Metric, v.Value
	return nil
}

// Err is nil: the values are in memory.
func (r *ValueRows) Err() error { return nil }
