package output

import "io"

type jsonWriter struct{ w io.Writer }

func newJSONWriter(w io.Writer, _ Options) Writer { return jsonWriter{w} }

func (j jsonWriter) Write(v any) error { return JSON(j.w, data(v)) }
func (j jsonWriter) Close() error      { return nil }
