package benchgen

import (
	"bufio"
	"fmt"
	"io"
)

// WriteRunsYAML writes an entity file of evaluation runs of about mb
// megabytes (50 results of two metrics per run), for the benchmark of
// `lf validate` and `lf add` on one large file.
func WriteRunsYAML(w io.Writer, mb int) error {
	bw := bufio.NewWriter(w)
	target := mb << 20
	n, _ := bw.WriteString("evaluation_runs:\n")
	for i := 0; n < target; i++ {
		k, _ := fmt.Fprintf(bw, "  - evaluation_key: eval-%d\n    id: run-%d\n    created_at: \"2026-01-15T09:00:00Z\"\n    status: completed\n    results:\n", i%100, i)
		n += k
		for t := 0; t < 50; t++ {
			k, _ = fmt.Fprintf(bw, "      - task_specification_key: task-%d\n        scorer_key: exact_match\n        metrics:\n          accuracy: 0.%03d\n          f1: 0.%03d\n", t, (i*7+t)%1000, (i*3+t)%1000)
			n += k
		}
	}
	return bw.Flush()
}
