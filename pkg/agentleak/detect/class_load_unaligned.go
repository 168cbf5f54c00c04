//go:build amd64 || arm64

package detect

import "unsafe"

// loadString64 is load64 for a caller that checked i+8 <= len(s): these
// little-endian machines load unaligned words, and the slice expression's
// bounds checks are left out of the class pass's word loop.
func loadString64(s string, i int) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
}

// loadString8 is s[i] for a caller that checked i < len(s).
func loadString8(s string, i int) byte {
	return *(*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
}
