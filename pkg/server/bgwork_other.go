//go:build !linux

package server

// lowerThreadPriority does nothing where threads have no priority of their
// own that Go can set.
func lowerThreadPriority() {}
