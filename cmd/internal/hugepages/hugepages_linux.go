package hugepages

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

const (
	premap      = 32 << 20 // heap mapped at once at start-up
	arenaWindow = 64 << 20 // the runtime's heap arena size on linux/amd64 and arm64
	madvHuge    = 14       // MADV_HUGEPAGE
)

// applied reports whether the heap was marked (for tests).
var applied bool

func init() {
	if !wanted(os.Args, os.Getenv("LF_HUGEPAGES")) {
		return
	}
	b := make([]byte, premap)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b))) &^ (arenaWindow - 1)
	// The window may reach past what is mapped: madvise marks the mapped
	// part and reports ENOMEM for the rest, which is expected.
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, base, 2*arenaWindow, madvHuge)
	applied = errno == 0 || errno == syscall.ENOMEM
	runtime.KeepAlive(b)
	b = nil
	runtime.GC()
}

// wanted: not turned off, and not `lf serve`.
func wanted(args []string, env string) bool {
	if env == "0" || env == "false" || env == "off" {
		return false
	}
	for _, a := range args[min(1, len(args)):] {
		if a == "serve" {
			return false
		}
	}
	return true
}
