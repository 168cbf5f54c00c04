// Package hugepages asks the kernel for transparent huge pages on the Go
// heap, once, when the lf binary starts (import it for its side effect).
//
// Why: on the virtual machines lf is measured on, the first touch of a 4 KiB
// page of fresh memory costs about 12 microseconds (a page fault that traps
// to the hypervisor). A scan of 9 MB of traces touches some 5,000 such pages,
// so faults were a fifth of its CPU time. Kernels whose transparent huge
// page setting is "madvise" (a common default) give huge pages only to
// memory that asks for them, and the Go runtime does not ask; a 2 MiB page
// is one fault instead of 512.
//
// How: at package initialisation (before the heavy initialisation of other
// packages) the runtime is made to map 32 MiB of heap at once by one large
// allocation, madvise(MADV_HUGEPAGE) marks the heap's 64 MiB arena window,
// and a garbage collection returns the allocation to the runtime, whose
// next allocations reuse those pages. Heap the runtime maps later (beyond
// the first 32 MiB) gets ordinary pages. Nothing changes where the kernel
// refuses (THP "never", no THP support) or already gives huge pages
// ("always").
//
// LF_HUGEPAGES=0 turns it off. `lf serve` is left out: a long-running server
// gives memory back to the kernel in small pieces, which splits huge pages,
// and its memory figures are documented without them.
package hugepages
