package output

import (
	"encoding/xml"
	"io"
)

// JUnitWriter collects the checks of every value written and, on Close,
// writes them as JUnit XML in the testsuites/testsuite/testcase/failure
// layout that Jenkins, GitLab and GitHub test reporters read: one test suite
// per Checker value, one test case per check.
type JUnitWriter struct {
	w      io.Writer
	suites []Suite
}

// NewJUnit returns a JUnit writer on w.
func NewJUnit(w io.Writer) *JUnitWriter { return &JUnitWriter{w: w} }

// Write adds v's checks; v must be a Checker.
func (j *JUnitWriter) Write(v any) error {
	c, ok := v.(Checker)
	if !ok {
		return notSupported("junit", v)
	}
	s := c.Checks()
	// Checks of a value written again with the same suite name (a streamed
	// scan) join the suite already there.
	for i := range j.suites {
		if j.suites[i].Name == s.Name {
			j.suites[i].Checks = append(j.suites[i].Checks, s.Checks...)
			return nil
		}
	}
	j.suites = append(j.suites, s)
	return nil
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Close writes the XML document.
func (j *JUnitWriter) Close() error {
	doc := junitSuites{Name: "lf"}
	for _, s := range j.suites {
		js := junitSuite{Name: s.Name, Tests: len(s.Checks)}
		for _, c := range s.Checks {
			jc := junitCase{Name: c.Name, Classname: c.Class}
			if c.Failed {
				js.Failures++
				jc.Failure = &junitFailure{Message: c.Message, Type: c.Level, Text: c.Detail}
			} else if c.Detail != "" {
				jc.SystemOut = c.Detail
			}
			js.Cases = append(js.Cases, jc)
		}
		doc.Tests += js.Tests
		doc.Failures += js.Failures
		doc.Suites = append(doc.Suites, js)
	}
	if _, err := io.WriteString(j.w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(j.w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(j.w, "\n")
	return err
}
