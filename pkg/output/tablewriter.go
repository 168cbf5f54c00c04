package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

type tableWriter struct {
	w io.Writer
	o Options
}

func newTableWriter(w io.Writer, o Options) Writer { return tableWriter{w, o} }

func (t tableWriter) Write(v any) error {
	vw, ok := v.(Viewer)
	if !ok {
		return fmt.Errorf("report: %T has no terminal view", v)
	}
	return t.view(vw.View())
}

func (t tableWriter) view(v any) error {
	switch x := v.(type) {
	case *TableView:
		return t.table(x)
	case *Document:
		_, err := io.WriteString(t.w, strings.Join(x.Lines, "\n")+"\n")
		return err
	case Sections:
		for _, part := range x {
			if err := t.view(part); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("report: unknown view %T", x)
	}
}

func (t tableWriter) table(x *TableView) error {
	if t.o.Width <= 0 {
		return Table(t.w, x.Header, x.Rows)
	}
	tb := tablewriter.NewTable(t.w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithMaxWidth(t.o.Width),
	)
	tb.Header(anySlice(x.Header)...)
	for _, r := range x.Rows {
		if err := tb.Append(anySlice(r)...); err != nil {
			return err
		}
	}
	return tb.Render()
}

func (t tableWriter) Close() error { return nil }
