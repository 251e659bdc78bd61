package config

import (
	"encoding"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The TOML library stops at the first type mismatch. To report every
// problem at once, files are parsed into generic values and merged into
// the Config by this walker, which checks each key against the schema.

// merger merges one parsed file into a Config.
type merger struct {
	ld    *loader
	file  string
	lines map[string]int // file key path -> line
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func reflectValue(cfg *Config) reflect.Value { return reflect.ValueOf(cfg).Elem() }

func (m *merger) errorf(filePath []string, format string, args ...any) {
	m.ld.diags = append(m.ld.diags, Diagnostic{File: m.file, Line: m.line(filePath), Msg: fmt.Sprintf(format, args...)})
}

// line finds the line of a key, or of its closest parent table.
func (m *merger) line(path []string) int {
	for n := len(path); n > 0; n-- {
		if l, ok := m.lines[strings.Join(path[:n], ".")]; ok {
			return l
		}
	}
	return 0
}

// value merges raw into rv. filePath addresses the value inside this file
// (for line numbers); mergedPath addresses it in the merged config (where
// [[startup]] indices continue after earlier files' entries).
func (m *merger) value(raw any, rv reflect.Value, filePath, mergedPath []string) {
	if len(mergedPath) > 0 {
		m.ld.origin[strings.Join(mergedPath, ".")] = location{m.file, m.line(filePath)}
	}
	key := displayKey(filePath)
	if reflect.PointerTo(rv.Type()).Implements(textUnmarshaler) {
		s, ok := raw.(string)
		if !ok {
			m.errorf(filePath, "%s: expected a string, got %s", key, describe(raw))
			return
		}
		if err := rv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			if rv.Type() == reflect.TypeFor[Duration]() {
				m.errorf(filePath, "%s: %q is not a duration (write e.g. \"500ms\", \"15s\", \"2m\")", key, s)
			} else {
				m.errorf(filePath, "%s: %v", key, err)
			}
		}
		return
	}
	switch rv.Kind() {
	case reflect.Struct:
		tbl, ok := raw.(map[string]any)
		if !ok {
			m.errorf(filePath, "%s: expected a table, got %s", key, describe(raw))
			return
		}
		fields := fieldsByTag(rv.Type())
		for _, k := range sortedKeys(tbl) {
			fp, mp := appendPath(filePath, k), appendPath(mergedPath, k)
			i, ok := fields[k]
			if !ok {
				m.errorf(fp, "unknown key %q", displayKey(fp))
				continue
			}
			m.value(tbl[k], rv.Field(i), fp, mp)
		}
	case reflect.Map:
		tbl, ok := raw.(map[string]any)
		if !ok {
			m.errorf(filePath, "%s: expected a table, got %s", key, describe(raw))
			return
		}
		if len(tbl) == 0 {
			return
		}
		if rv.IsNil() {
			rv.Set(reflect.MakeMap(rv.Type()))
		}
		for _, k := range sortedKeys(tbl) {
			kv := reflect.ValueOf(k).Convert(rv.Type().Key())
			elem := reflect.New(rv.Type().Elem()).Elem()
			if old := rv.MapIndex(kv); old.IsValid() {
				// Tables such as [kinds.claude] merge into the existing entry.
				elem.Set(old)
			}
			m.value(tbl[k], elem, appendPath(filePath, k), appendPath(mergedPath, k))
			rv.SetMapIndex(kv, elem)
		}
	case reflect.Slice:
		arr, ok := asArray(raw)
		if !ok {
			m.errorf(filePath, "%s: expected an array, got %s%s", key, describe(raw), arrayHint(raw, rv.Type().Elem()))
			return
		}
		if rv.Type().Elem().Kind() == reflect.Struct {
			// Arrays of tables accumulate across files.
			base := rv.Len()
			for i, item := range arr {
				elem := reflect.New(rv.Type().Elem()).Elem()
				m.value(item, elem, appendPath(filePath, strconv.Itoa(i)), appendPath(mergedPath, strconv.Itoa(base+i)))
				rv.Set(reflect.Append(rv, elem))
			}
			return
		}
		if len(arr) == 0 {
			rv.Set(reflect.Zero(rv.Type()))
			return
		}
		out := reflect.MakeSlice(rv.Type(), len(arr), len(arr))
		for i, item := range arr {
			m.value(item, out.Index(i), appendPath(filePath, strconv.Itoa(i)), nil)
		}
		rv.Set(out)
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			m.errorf(filePath, "%s: expected a string, got %s", key, describe(raw))
			return
		}
		rv.SetString(s)
	case reflect.Int, reflect.Int64:
		n, ok := raw.(int64)
		if !ok {
			m.errorf(filePath, "%s: expected an integer, got %s", key, describe(raw))
			return
		}
		rv.SetInt(n)
	case reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			m.errorf(filePath, "%s: expected true or false, got %s", key, describe(raw))
			return
		}
		rv.SetBool(b)
	default:
		// The schema only uses the kinds above; a new kind is a programming
		// error that the ExampleTOML round-trip test catches.
		m.errorf(filePath, "%s: unsupported setting type %s", key, rv.Type())
	}
}

func asArray(raw any) ([]any, bool) {
	switch a := raw.(type) {
	case []any:
		return a, true
	case []map[string]any:
		out := make([]any, len(a))
		for i, t := range a {
			out[i] = t
		}
		return out, true
	}
	return nil, false
}

// describe names a TOML value's type and shows it, for type errors.
// arrayHint is how to write a string given where an array of strings is
// expected: a command's words, each its own element.
func arrayHint(raw any, elem reflect.Type) string {
	s, ok := raw.(string)
	if !ok || elem.Kind() != reflect.String || strings.TrimSpace(s) == "" {
		return ""
	}
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strconv.Quote(w)
	}
	return "; write [" + strings.Join(words, ", ") + "]"
}

func describe(raw any) string {
	switch v := raw.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date/time"
	}
	return fmt.Sprintf("a %T", raw)
}

// fieldsByTag maps each toml tag of a struct type to its field index.
func fieldsByTag(t reflect.Type) map[string]int {
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		if tag := tomlName(t.Field(i)); tag != "" {
			out[tag] = i
		}
	}
	return out
}

func tomlName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	return tag
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func appendPath(p []string, k string) []string {
	out := make([]string, len(p), len(p)+1)
	copy(out, p)
	return append(out, k)
}

// displayKey renders a key path for messages: "startup[0].kind".
func displayKey(path []string) string {
	var sb strings.Builder
	for i, seg := range path {
		if _, err := strconv.Atoi(seg); err == nil && i > 0 {
			sb.WriteString("[" + seg + "]")
			continue
		}
		if i > 0 {
			sb.WriteByte('.')
		}
		if needsQuotes(seg) {
			sb.WriteString(strconv.Quote(seg))
		} else {
			sb.WriteString(seg)
		}
	}
	return sb.String()
}

func needsQuotes(k string) bool {
	if k == "" {
		return true
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return true
		}
	}
	return false
}
