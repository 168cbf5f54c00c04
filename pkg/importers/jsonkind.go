package importers

import (
	"encoding/json"
	"reflect"
)

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

// jsonKind names what a Go type is decoded from in JSON words ("an
// object", "a list", ...), so that a message never shows a Go type name.
func jsonKind(t reflect.Type) string {
	if t == nil || t == rawMessage {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value"
}

// jsonValueKind names a JSON value kind as encoding/json reports it
// ("string", "number", "array", "object", "bool").
func jsonValueKind(v string) string {
	switch v {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	case "string", "number":
		return "a " + v
	}
	if len(v) > 6 && v[:6] == "number" {
		return "a number (" + v[7:] + ")"
	}
	return v
}
