package server

import (
	"syscall"
	"unsafe"
)

// bulkNice is the bulk worker's nice value where the idle scheduling class
// is refused: CFS gives a thread at nice 10 about a tenth of the CPU of one
// at 0 when both want it, and all of it when nothing else runs.
const bulkNice = 10

// schedIdle is Linux's SCHED_IDLE policy: the thread runs only on a core no
// other (normal) thread wants, and a normal thread that wakes up takes the
// core from it at once. At nice 10 a woken verdict thread could still wait
// for the running ingest thread's slice to end (runtime /sched/latencies
// p99 1.6 ms under 10,000 events/s of ingest).
const schedIdle = 5

// lowerThreadPriority puts the calling thread in the idle scheduling class
// (sched_setscheduler with a thread id acts on that thread alone), or, if
// the kernel refuses, sets its nice value to bulkNice. A failure of both
// leaves the priority as it was.
func lowerThreadPriority() {
	var param struct{ priority int32 } // struct sched_param: 0 for SCHED_IDLE
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(syscall.Gettid()), schedIdle, uintptr(unsafe.Pointer(&param)))
	if errno != 0 {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), bulkNice)
	}
}
