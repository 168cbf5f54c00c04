//go:build !(amd64 || arm64)

package jsonlex

import "encoding/binary"

// LoadBytes64 is binary.LittleEndian.Uint64(b[i:]) for a caller that checked
// i+8 <= len(b).
func LoadBytes64(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i:])
}

// StoreBytes64 is binary.LittleEndian.PutUint64(b[i:], w) for a caller that
// checked i+8 <= len(b).
func StoreBytes64(b []byte, i int, w uint64) {
	binary.LittleEndian.PutUint64(b[i:], w)
}

// LoadBytes32 is binary.LittleEndian.Uint32(b[i:]) for a caller that checked
// i+4 <= len(b).
func LoadBytes32(b []byte, i int) uint32 {
	return binary.LittleEndian.Uint32(b[i:])
}

// StoreBytes32 is binary.LittleEndian.PutUint32(b[i:], w) for a caller that
// checked i+4 <= len(b).
func StoreBytes32(b []byte, i int, w uint32) {
	binary.LittleEndian.PutUint32(b[i:], w)
}
