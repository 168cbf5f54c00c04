package server

import "syscall"

// scanNice is the nice value of the scan workers' threads: the kernel
// gives a thread at nice 10 about a tenth of the CPU of one at 0 when both
// want it (verdicts and span intake come first), and all of it when
// nothing else runs. Not the idle class of the bulk worker: on a machine
// kept busy by other processes, scans in that class would never run and
// every tenant would be held at otlp.maxPendingSpans.
const scanNice = 10

// niceScanThread lowers the calling thread's priority to scanNice; a
// refusal leaves it as it was.
func niceScanThread() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), scanNice)
}
