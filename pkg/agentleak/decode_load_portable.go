//go:build !(amd64 || arm64)

package agentleak

import "encoding/binary"

// loadBytes64 is binary.LittleEndian.Uint64(b[i:]) for a caller that checked
// i+8 <= len(b).
func loadBytes64(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i:])
}

// storeBytes64 is binary.LittleEndian.PutUint64(b[i:], w) for a caller that
// checked i+8 <= len(b).
func storeBytes64(b []byte, i int, w uint64) {
	binary.LittleEndian.PutUint64(b[i:], w)
}

// loadBytes32 is binary.LittleEndian.Uint32(b[i:]) for a caller that checked
// i+4 <= len(b).
func loadBytes32(b []byte, i int) uint32 {
	return binary.LittleEndian.Uint32(b[i:])
}

// storeBytes32 is binary.LittleEndian.PutUint32(b[i:], w) for a caller that
// checked i+4 <= len(b).
func storeBytes32(b []byte, i int, w uint32) {
	binary.LittleEndian.PutUint32(b[i:], w)
}
