//go:build amd64 || arm64

package agentleak

import "unsafe"

// loadBytes64 is binary.LittleEndian.Uint64(b[i:]) for a caller that checked
// i+8 <= len(b): these little-endian machines load unaligned words, and
// the slice expression's bounds check and pointer masking, a third of the
// string search's instructions, are left out.
func loadBytes64(b []byte, i int) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

// storeBytes64 is binary.LittleEndian.PutUint64(b[i:], w) for a caller that
// checked i+8 <= len(b).
func storeBytes64(b []byte, i int, w uint64) {
	*(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = w
}

// loadBytes32 is binary.LittleEndian.Uint32(b[i:]) for a caller that checked
// i+4 <= len(b).
func loadBytes32(b []byte, i int) uint32 {
	return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

// storeBytes32 is binary.LittleEndian.PutUint32(b[i:], w) for a caller that
// checked i+4 <= len(b).
func storeBytes32(b []byte, i int, w uint32) {
	*(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = w
}
