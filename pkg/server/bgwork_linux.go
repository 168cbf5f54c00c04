package server

import "syscall"

// bulkNice is the bulk worker's nice value: CFS gives a thread at nice 10
// about a tenth of the CPU of one at 0 when both want it, and all of it
// when nothing else runs.
const bulkNice = 10

// lowerThreadPriority sets the calling thread's nice value to bulkNice
// (on Linux, PRIO_PROCESS with a thread id acts on that thread alone). A
// failure leaves the priority as it was.
func lowerThreadPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), bulkNice)
}
