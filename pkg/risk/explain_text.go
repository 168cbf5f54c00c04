package risk

import "fmt"

// String shows a parameter as an explanation prints it: "impact = 7",
// "reach = external (1)" when the function receives another number than
// the value configured, and "(default)" when the scorer's config leaves it
// out.
func (p ParamValue) String() string {
	s := fmt.Sprintf("%s = %v", p.Key, p.Configured)
	if fmt.Sprint(p.Used) != fmt.Sprint(p.Configured) {
		s += fmt.Sprintf(" (%v)", p.Used)
	}
	if p.Default {
		s += " (default)"
	}
	return s
}
