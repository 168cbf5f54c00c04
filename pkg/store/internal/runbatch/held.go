package runbatch

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// HoldBatch is how many results a writer that holds its values queues
// before it takes them in: few, so that each result's map of metrics is
// garbage soon.
const HoldBatch = 64

// HeldValues is how many metric values a run writer holds in memory (about
// 16 MB) before it writes them out (a variable for the tests).
var HeldValues = 1 << 20

// Held is the metric values of a run held in memory, compactly (a result
// index and the value per metric value, 16 bytes), until a writer stores
// them as a block (Block) in task order.
type Held struct {
	metrics map[string]int // metric name -> index in names and cells
	names   []string
	cells   []cellList // by metric index
	tasks   []heldTask // by result index
	n       int        // values held
	// Blocks already made of the run (Block with more): a hash of each
	// (task, scorer) pair they hold, and how many values they held.
	seen    map[uint64]struct{}
	seed    maphash.Seed
	spilled int
	dupOf   int32 // the result of a value given twice (Block)
	// Buffers of Block, kept from call to call.
	byTask   []int32
	byMetric []int
	vals     []float64
}

type heldCell struct {
	result int32
	value  float64
}

type heldTask struct{ task, scorer string }

// cellList is the held values of one metric in chunks that are filled and
// never copied: appending to one slice per metric copied each metric's
// values again at every doubling (a tenth of a 23,000-result run's write).
type cellList struct {
	chunks [][]heldCell
	n      int
	spare  [][]heldCell // chunks of before a Reset, to fill again
}

// firstChunk and maxChunk bound the chunks' sizes: they double from the
// first, so that a metric few results have takes little room.
const firstChunk, maxChunk = 64, 8192

func (l *cellList) add(c heldCell) {
	if k := len(l.chunks); k > 0 && len(l.chunks[k-1]) < cap(l.chunks[k-1]) {
		l.chunks[k-1] = append(l.chunks[k-1], c)
		l.n++
		return
	}
	var next []heldCell
	if len(l.spare) > 0 {
		next, l.spare = l.spare[0][:0], l.spare[1:]
	} else {
		size := firstChunk
		if k := len(l.chunks); k > 0 {
			size = min(2*cap(l.chunks[k-1]), maxChunk)
		}
		next = make([]heldCell, 0, size)
	}
	l.chunks = append(l.chunks, append(next, c))
	l.n++
}

// reset empties the list, keeping its chunks for the next values.
func (l *cellList) reset() {
	l.spare = append(l.spare, l.chunks...)
	l.chunks, l.n = l.chunks[:0], 0
}

// Row is one metric value of a run: its task, scorer and value.
type Row struct {
	Task, Scorer string
	Value        float64
}

// Add holds the values of results.
func (h *Held) Add(results []model.Result) {
	if h.metrics == nil {
		h.metrics = map[string]int{}
	}
	for i := range results {
		r := &results[i]
		idx := int32(len(h.tasks))
		h.tasks = append(h.tasks, heldTask{r.TaskSpecificationKey, r.ScorerKey})
		for m, v := range r.Metrics {
			k, ok := h.metrics[m]
			if !ok {
				k = len(h.names)
				h.metrics[m] = k
				h.names = append(h.names, m)
				h.cells = append(h.cells, cellList{})
			}
			h.cells[k].add(heldCell{idx, v})
			h.n++
		}
	}
}

// Len is how many values are held.
func (h *Held) Len() int { return h.n }

// Full tells whether the writer should write the held values out.
func (h *Held) Full() bool { return h.n >= HeldValues }

// Reset forgets the held values.
func (h *Held) Reset() {
	for k := range h.cells {
		h.cells[k].reset()
	}
	h.tasks = h.tasks[:0]
	h.n = 0
}

// sortTasks sorts the numbers of the held results by task and scorer into
// h.byTask.
func (h *Held) sortTasks() {
	h.byTask = h.byTask[:0]
	for i := range h.tasks {
		h.byTask = append(h.byTask, int32(i))
	}
	slices.SortFunc(h.byTask, func(a, b int32) int {
		ta, tb := &h.tasks[a], &h.tasks[b]
		if c := strings.Compare(ta.task, tb.task); c != 0 {
			return c
		}
		return strings.Compare(ta.scorer, tb.scorer)
	})
}
