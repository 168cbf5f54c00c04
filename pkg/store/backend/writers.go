package backend

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Abandoned tells whether the writer of a run still marked running is gone:
// on this host (writerHost == host) its process no longer exists; on another
// host its heartbeat (TimeFormat) is older than StaleAfter. Every backend's
// garbage collection decides with it.
func Abandoned(pid int, writerHost, heartbeat, host string, now time.Time) bool {
	if writerHost == host && host != "" {
		return !processAlive(pid)
	}
	t, err := time.Parse(TimeFormat, heartbeat)
	return err != nil || now.Sub(t) > StaleAfter
}

// processAlive tells whether a process with this id runs on this host.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
