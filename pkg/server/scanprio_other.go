//go:build !linux

package server

// niceScanThread does nothing where threads have no priority of their own
// that Go can set.
func niceScanThread() {}
