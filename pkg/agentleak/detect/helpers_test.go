package detect

// allFamilies enables every built-in detector family (what a scan without
// a config enables).
func allFamilies() map[string]bool {
	m := make(map[string]bool, len(Families))
	for _, f := range Families {
		m[f] = true
	}
	return m
}
