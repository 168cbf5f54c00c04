// Command lfgen writes large synthetic projects for lf's benchmarks.
//
//	go run ./cmd/lfgen project -dir /tmp/lf-bench            # 1,000 scorers, 100 keys x 100 runs x 1,000 values
//	go run ./cmd/lfgen project -dir /tmp/lf-bench-10 -runs 10
//	go run ./cmd/lfgen project -dir /tmp/lf-compliance -runs 10 -frameworks 50 -requirements 40
//	go run ./cmd/lfgen files -dir /tmp/lf-files -n 1000       # 1,000 entity files for lf validate
//	go run ./cmd/lfgen runs -dir /tmp/lf-runs -mb 50          # one 50 MB file of runs (runs.yaml)
//	go run ./cmd/lfgen agent-events -agents 10000 -events 5000000 > events.jsonl
//	go run ./cmd/lfgen agentleak -repeat 300 -o big.jsonl     # AgentLeak traces (see agentleak.go)
//	go run ./cmd/lfgen loadgen -addr 127.0.0.1:8080 -key $LF_KEY_ACME -rate 5000   # load on lf serve
//	go run ./cmd/lfgen bestof -n 5 -- lf agentleak scan ...   # best/median wall, CPU, peak RSS in ms
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lfcli/lf/cmd/lfgen/benchgen"
)

const usage = "usage: lfgen project|files|runs|agent-events|agentleak|loadgen|bestof [flags]"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "agent-events":
		agentEventsCmd(os.Args[2:])
		return
	case "agentleak":
		agentleakCmd(os.Args[2:])
		return
	case "loadgen":
		loadgenCmd(os.Args[2:])
		return
	case "bestof":
		bestofCmd(os.Args[2:])
		return
	case "project", "files", "runs":
	default:
		fmt.Fprintf(os.Stderr, "lfgen: unknown generator %q\n%s\n", os.Args[1], usage)
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", "", "output folder (required)")
	size := benchgen.Full
	fs.IntVar(&size.Scorers, "scorers", size.Scorers, "risk scorers")
	fs.IntVar(&size.EvaluationKeys, "keys", size.EvaluationKeys, "evaluation keys")
	fs.IntVar(&size.RunsPerKey, "runs", size.RunsPerKey, "runs per evaluation key")
	fs.IntVar(&size.ValuesPerRun, "values", size.ValuesPerRun, "metric values per run")
	fs.IntVar(&size.Frameworks, "frameworks", 0, "compliance frameworks (frameworks.yaml, stored)")
	fs.IntVar(&size.Requirements, "requirements", 40, "requirements per framework")
	n := fs.Int("n", 1000, "files (files)")
	mb := fs.Int("mb", 50, "size of runs.yaml in MB (runs)")
	fs.Parse(os.Args[2:])
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "lfgen: -dir is required")
		os.Exit(2)
	}
	start := time.Now()
	var err error
	switch os.Args[1] {
	case "project":
		err = benchgen.WriteProject(context.Background(), *dir, size, 1)
	case "files":
		err = benchgen.WriteFiles(*dir, *n)
	case "runs":
		err = writeRuns(*dir, *mb)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lfgen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "lfgen: wrote %s in %s\n", *dir, time.Since(start).Round(time.Millisecond))
}

func writeRuns(dir string, mb int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "lf.yaml"), []byte("name: runs-bench\n"), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "runs.yaml"))
	if err != nil {
		return err
	}
	if err := benchgen.WriteRunsYAML(f, mb); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
