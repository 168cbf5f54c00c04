package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"syscall"
	"time"
)

// bestofCmd runs a command several times and prints its best and median
// wall time, its best CPU time (user + system) and its peak RSS, in
// milliseconds: /usr/bin/time reports hundredths of a second, too coarse
// for a 70 ms target.
//
//	lfgen bestof -n 5 [-events 18760 -peer 1800] [-fresh store.db] -- lf agentleak scan ...
func bestofCmd(args []string) {
	fs := flag.NewFlagSet("bestof", flag.ExitOnError)
	n := fs.Int("n", 5, "runs")
	events := fs.Int("events", 0, "events the command processes: also print events/s")
	peer := fs.Float64("peer", 0, "the peer's events/s: also print the ratio (needs -events)")
	fresh := fs.String("fresh", "", "an SQLite store file to remove (with its -wal and -shm) before each run")
	fs.Parse(args)
	cmd := fs.Args()
	if len(cmd) == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: lfgen bestof [-n 5] [-events N -peer EPS] [-fresh STORE] -- command [args]")
		os.Exit(2)
	}
	var walls, cpus []time.Duration
	var peak int64
	for i := 0; i < *n; i++ {
		if *fresh != "" {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(*fresh + suffix)
			}
		}
		c := exec.Command(cmd[0], cmd[1:]...)
		start := time.Now()
		err := c.Run()
		wall := time.Since(start)
		if c.ProcessState == nil {
			fmt.Fprintf(os.Stderr, "lfgen bestof: %v\n", err)
			os.Exit(1)
		}
		ru, _ := c.ProcessState.SysUsage().(*syscall.Rusage)
		if ru != nil {
			cpus = append(cpus, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
			peak = max(peak, ru.Maxrss)
		}
		walls = append(walls, wall)
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Printf("wall best %.1f ms (median %.1f), cpu best %.1f ms, peak %d MB", ms(walls[0]), ms(walls[len(walls)/2]), ms(cpus[0]), peak/1024)
	if *events > 0 {
		eps := float64(*events) / walls[0].Seconds()
		fmt.Printf(", %.0f events/s", eps)
		if *peer > 0 {
			fmt.Printf(" = %.0fx the peer", eps/(*peer))
		}
	}
	fmt.Println()
}
