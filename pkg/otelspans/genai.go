package otelspans

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// lfAttrs is what MappingLF reads of a span: its attributes; nested
// objects (Phoenix exports {"input": {"value": ...}}) also under their
// dotted keys; and the gen_ai.* attributes of its span events (older GenAI
// instrumentations put prompts and completions there), for keys the span
// itself lacks.
func lfAttrs(s *Span) Attrs {
	list := s.Attrs.List()
	nested, events := false, false
	for _, kv := range list {
		if _, ok := kv.Value.([]KV); ok {
			nested = true
			break
		}
	}
	for _, e := range s.Events {
		if e.Attrs.Len() > 0 {
			events = true
			break
		}
	}
	if !nested && !events {
		return s.Attrs
	}
	out := append([]KV(nil), list...)
	have := map[string]bool{}
	for _, kv := range list {
		have[kv.Key] = true
	}
	addKV := func(k string, v any) {
		if !have[k] {
			have[k] = true
			out = append(out, KV{Key: k, Value: v})
		}
	}
	if nested {
		for _, kv := range list {
			if o, ok := kv.Value.([]KV); ok {
				flatten(kv.Key, o, addKV)
			}
		}
	}
	for _, e := range s.Events {
		for _, kv := range e.Attrs.List() {
			if strings.HasPrefix(kv.Key, "gen_ai.") {
				addKV(kv.Key, kv.Value)
			}
		}
	}
	return NewAttrs(out)
}

func flatten(prefix string, o []KV, add func(string, any)) {
	for _, kv := range o {
		k := prefix + "." + kv.Key
		switch v := kv.Value.(type) {
		case []KV:
			flatten(k, v, add)
		case []any:
			objs := true
			for _, e := range v {
				if _, ok := e.([]KV); !ok {
					objs = false
				}
			}
			if objs && len(v) > 0 {
				for i, e := range v {
					flatten(k+"."+strconv.Itoa(i), e.([]KV), add)
				}
			} else {
				add(k, v)
			}
		default:
			add(k, v)
		}
	}
}

// genMessage is a message of gen_ai.input.messages / gen_ai.output.messages
// (GenAI semantic conventions) or of the Vercel AI SDK's ai.prompt.messages.
type genMessage struct {
	Role    string          `json:"role"`
	Parts   []genPart       `json:"parts"`
	Content json.RawMessage `json:"content"`
}

type genPart struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func parseMessages(s string) []genMessage {
	if msgs, ok := fastMessages(s); ok {
		return msgs
	}
	var msgs []genMessage
	if json.Unmarshal([]byte(s), &msgs) != nil {
		return nil
	}
	return msgs
}

// text is the message's text: its text parts (or string content) joined.
func (m genMessage) text() string {
	var parts []string
	for _, p := range m.Parts {
		if p.Type == "text" || p.Type == "" {
			if t := rawText(p.Content); t != "" {
				parts = append(parts, t)
			} else if p.Text != "" {
				parts = append(parts, p.Text)
			}
		}
	}
	if len(m.Parts) == 0 && len(m.Content) > 0 {
		if t := rawText(m.Content); t != "" {
			return t
		}
		var cs []genPart
		if json.Unmarshal(m.Content, &cs) == nil {
			for _, p := range cs {
				if p.Type == "text" && p.Text != "" {
					parts = append(parts, p.Text)
				}
			}
		}
	}
	return strings.Join(parts, "\n")
}

// rawText is a JSON string's text, or "" for anything else. r comes from
// a document json.Unmarshal read, so a string without escapes in valid
// UTF-8 is its bytes between the quotes (what decoding it again returns):
// the text is those bytes, not a copy, as r is never written (it is part
// of an attribute's text, or encoding/json's copy of it).
func rawText(r json.RawMessage) string {
	if n := len(r); n >= 2 && r[0] == '"' && r[n-1] == '"' && bytes.IndexByte(r, '\\') < 0 && utf8.Valid(r) {
		return unsafe.String(unsafe.SliceData(r[1:]), n-2)
	}
	var s string
	if len(r) > 0 && r[0] == '"' && json.Unmarshal(r, &s) == nil {
		return s
	}
	return ""
}

// argText is a tool call's arguments as text: a JSON string as is, any
// other JSON value compact.
func argText(r json.RawMessage) string {
	if t := rawText(r); t != "" {
		return t
	}
	if len(r) == 0 || string(r) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, r) != nil {
		return string(r)
	}
	return b.String()
}

// lfUserText is the last user message an LLM span was given.
func lfUserText(at Attrs) string {
	last := ""
	for _, m := range indexed(at, "llm.input_messages.") {
		p := fmt.Sprintf("llm.input_messages.%d.message.", m)
		if at.Str(p+"role") != "user" {
			continue
		}
		if c := at.Str(p + "content"); c != "" {
			last = c
		} else if c := joinParts(at, p+"contents."); c != "" {
			last = c
		}
	}
	if last != "" {
		return last
	}
	for _, key := range []string{"gen_ai.input.messages", "ai.prompt.messages"} {
		for _, m := range parseMessages(at.Str(key)) {
			if m.Role == "user" {
				if t := m.text(); t != "" {
					last = t
				}
			}
		}
		if last != "" {
			return last
		}
	}
	for _, m := range indexed(at, "gen_ai.prompt.") {
		p := fmt.Sprintf("gen_ai.prompt.%d.", m)
		if r := at.Str(p + "role"); r == "user" || r == "" {
			if c := at.Str(p + "content"); c != "" {
				last = c
			}
		}
	}
	return last
}

type call struct{ name, args string }

// lfOutputMessages reads the tool calls and the text of an LLM span's
// output in the GenAI conventions (gen_ai.output.messages), OpenLLMetry
// (gen_ai.completion.<i>.*) and the Vercel AI SDK (ai.response.toolCalls).
func lfOutputMessages(at Attrs) ([]call, string) {
	var calls []call
	text := ""
	for _, m := range parseMessages(at.Str("gen_ai.output.messages")) {
		for _, p := range m.Parts {
			if p.Type == "tool_call" {
				if args := argText(p.Arguments); args != "" || p.Name != "" {
					calls = append(calls, call{p.Name, nonEmpty(args, p.Name)})
				}
			}
		}
		if t := m.text(); t != "" {
			text = t
		}
	}
	for _, m := range indexed(at, "gen_ai.completion.") {
		p := fmt.Sprintf("gen_ai.completion.%d.", m)
		for _, c := range indexed(at, p+"tool_calls.") {
			q := fmt.Sprintf("%stool_calls.%d.", p, c)
			name := at.Str(q + "name")
			if args, ok := at.First(q+"arguments", q+"name"); ok {
				calls = append(calls, call{name, args})
			}
		}
		if c := at.Str(p + "content"); c != "" {
			text = c
		}
	}
	if tc := at.Str("ai.response.toolCalls"); tc != "" {
		calls = vercelToolCalls(calls, tc)
	}
	return calls, text
}

// vercelToolCalls adds the tool calls of the Vercel AI SDK's
// ai.response.toolCalls. It is a function of its own so that the list it
// decodes into, which escapes to encoding/json, is allocated only for a
// span that has the attribute, not for every LLM span.
func vercelToolCalls(calls []call, tc string) []call {
	var vc []struct {
		ToolName string          `json:"toolName"`
		Args     json.RawMessage `json:"args"`
		Input    json.RawMessage `json:"input"`
	}
	if json.Unmarshal([]byte(tc), &vc) != nil {
		return calls
	}
	for _, c := range vc {
		args := argText(c.Args)
		if args == "" {
			args = argText(c.Input)
		}
		calls = append(calls, call{c.ToolName, nonEmpty(args, c.ToolName)})
	}
	return calls
}
