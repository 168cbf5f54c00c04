//go:build amd64 || arm64

package jsonlex

import "unsafe"

// LoadBytes64 is binary.LittleEndian.Uint64(b[i:]) for a caller that checked
// i+8 <= len(b): these little-endian machines load unaligned words, and
// the slice expression's bounds check and pointer masking, a third of the
// string search's instructions, are left out.
func LoadBytes64(b []byte, i int) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

// StoreBytes64 is binary.LittleEndian.PutUint64(b[i:], w) for a caller that
// checked i+8 <= len(b).
func StoreBytes64(b []byte, i int, w uint64) {
	*(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = w
}

// LoadBytes32 is binary.LittleEndian.Uint32(b[i:]) for a caller that checked
// i+4 <= len(b).
func LoadBytes32(b []byte, i int) uint32 {
	return *(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

// StoreBytes32 is binary.LittleEndian.PutUint32(b[i:], w) for a caller that
// checked i+4 <= len(b).
func StoreBytes32(b []byte, i int, w uint32) {
	*(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = w
}
