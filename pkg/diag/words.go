package diag

import "strconv"

// Count renders n with the singular or plural noun: "1 run", "2 runs". Every
// count lf prints in a sentence or title goes through it.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
