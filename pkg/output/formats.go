package output

import "io"

// formats lists the output formats, one line each; each format lives in its
// own file. A new format is one file and one line here.
var formats = map[string]Factory{
	"table":    newTableWriter,
	"json":     newJSONWriter,
	"yaml":     newYAMLWriter,
	"junit":    func(w io.Writer, _ Options) Writer { return NewJUnit(w) },
	"sarif":    func(w io.Writer, o Options) Writer { return NewSARIF(w, o.ToolVersion) },
	"markdown": func(w io.Writer, o Options) Writer { return &MarkdownWriter{w: w, Order: o.Levels} },
}
