package output

import (
	"bytes"
	"testing"
	"time"
)

type viewSample struct{}

func (viewSample) Data() any {
	return Fields{{"zeta", 1}, {"alpha", "x"}}
}

func (viewSample) View() any {
	return &TableView{Header: []string{"NAME", "VALUE"}, Rows: [][]string{{"zeta", "1"}}}
}

func TestWritersKeepFieldOrder(t *testing.T) {
	for format, want := range map[string]string{
		"json": "{\n  \"zeta\": 1,\n  \"alpha\": \"x\"\n}\n",
		"yaml": "zeta: 1\nalpha: x\n",
	} {
		var b bytes.Buffer
		w, err := New(format, &b, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(viewSample{}); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != want {
			t.Errorf("%s: got %q, want %q", format, got, want)
		}
	}
}

func TestNewUnknownFormatListsFormats(t *testing.T) {
	_, err := New("xml", &bytes.Buffer{}, Options{})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("json, junit, markdown, sarif, table, yaml")) {
		t.Fatalf("got %v", err)
	}
}

func TestTime(t *testing.T) {
	if got := Time(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); got != "2026-01-02T03:04:05Z" {
		t.Error(got)
	}
	if got := Time(time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC)); got != "2026-01-02T03:04:05.5Z" {
		t.Error(got)
	}
}
