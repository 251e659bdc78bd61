package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"
)

// schema is a tool's input schema, the part of JSON Schema the tools'
// schemas (toolSchemas) use; parseSchema refuses any other keyword, so a
// schema cannot promise a check that is not made. The MCP client sees the
// schema as written; the server checks every call's arguments against it
// before the tool runs.
type schema struct {
	typ        string // object, array, string, integer, number, boolean
	properties map[string]*schema
	required   []string
	// additional is the schema of properties not listed; nil with
	// closed set refuses them.
	additional *schema
	closed     bool
	items      *schema

	minLength, maxLength *int
	minItems, maxItems   *int
	minimum, maximum     *float64
	exclusiveMinimum     *float64
	enum                 []string
	pattern              *regexp.Regexp
}

// parseSchema reads a schema written in the subset schema knows.
func parseSchema(raw []byte) (*schema, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	s := &schema{}
	for k, v := range fields {
		var err error
		switch k {
		case "description":
		case "type":
			err = json.Unmarshal(v, &s.typ)
		case "properties":
			var props map[string]json.RawMessage
			if err = json.Unmarshal(v, &props); err == nil {
				s.properties = map[string]*schema{}
				for name, p := range props {
					if s.properties[name], err = parseSchema(p); err != nil {
						return nil, fmt.Errorf("%s: %w", name, err)
					}
				}
			}
		case "required":
			err = json.Unmarshal(v, &s.required)
		case "additionalProperties":
			if string(v) == "false" {
				s.closed = true
			} else {
				s.additional, err = parseSchema(v)
			}
		case "items":
			s.items, err = parseSchema(v)
		case "minLength":
			err = json.Unmarshal(v, &s.minLength)
		case "maxLength":
			err = json.Unmarshal(v, &s.maxLength)
		case "minItems":
			err = json.Unmarshal(v, &s.minItems)
		case "maxItems":
			err = json.Unmarshal(v, &s.maxItems)
		case "minimum":
			err = json.Unmarshal(v, &s.minimum)
		case "maximum":
			err = json.Unmarshal(v, &s.maximum)
		case "exclusiveMinimum":
			err = json.Unmarshal(v, &s.exclusiveMinimum)
		case "enum":
			err = json.Unmarshal(v, &s.enum)
		case "pattern":
			var p string
			if err = json.Unmarshal(v, &p); err == nil {
				s.pattern, err = regexp.Compile(p)
			}
		default:
			return nil, fmt.Errorf("the keyword %q is not checked by agentgrid's schema validator", k)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	switch s.typ {
	case "object", "array", "string", "integer", "number", "boolean":
	default:
		return nil, fmt.Errorf("type %q is not one of object, array, string, integer, number, boolean", s.typ)
	}
	return s, nil
}

// checkArguments checks a tools/call's arguments (absent or null: no
// arguments) against s, and says what is wrong in one sentence.
func (s *schema) checkArguments(raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return errors.New("invalid arguments: they must be a JSON object")
	}
	if err := s.check(v, ""); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

// check checks v, a value decoded with json.Number, against s; path names
// v in the error.
func (s *schema) check(v any, path string) error {
	at := func(format string, args ...any) error {
		if path == "" {
			return fmt.Errorf(format, args...)
		}
		return fmt.Errorf(path+": "+format, args...)
	}
	switch s.typ {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			return at("want an object")
		}
		for _, name := range s.required {
			if _, ok := obj[name]; !ok {
				return at("missing the required argument %q", name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			p := s.properties[name]
			if p == nil {
				p = s.additional
			}
			if p == nil {
				if s.closed {
					return at("unknown argument %q", name)
				}
				continue
			}
			if err := p.check(obj[name], join(path, name)); err != nil {
				return err
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			return at("want an array")
		}
		if s.minItems != nil && len(arr) < *s.minItems {
			return at("needs at least %s, has %d", count(*s.minItems, "item"), len(arr))
		}
		if s.maxItems != nil && len(arr) > *s.maxItems {
			return at("takes at most %s, has %d", count(*s.maxItems, "item"), len(arr))
		}
		for i, e := range arr {
			if s.items != nil {
				if err := s.items.check(e, path+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return at("want a string, not %s", jsonKind(v))
		}
		n := utf8.RuneCountInString(str)
		if s.minLength != nil && n < *s.minLength {
			return at("needs at least %s, has %d", count(*s.minLength, "character"), n)
		}
		if s.maxLength != nil && n > *s.maxLength {
			return at("takes at most %s, has %d", count(*s.maxLength, "character"), n)
		}
		if s.enum != nil && !slices.Contains(s.enum, str) {
			return at("%q is not one of %q", str, s.enum)
		}
		if s.pattern != nil && !s.pattern.MatchString(str) {
			return at("%q does not match %s", str, s.pattern)
		}
	case "integer", "number":
		num, ok := v.(json.Number)
		if !ok {
			return at("want a number, not %s", jsonKind(v))
		}
		f, err := num.Float64()
		if err != nil || math.IsInf(f, 0) {
			return at("%s is out of range", num)
		}
		if s.typ == "integer" && f != math.Trunc(f) {
			return at("want a whole number, not %s", num)
		}
		if s.minimum != nil && f < *s.minimum {
			return at("%s is below the minimum %v", num, *s.minimum)
		}
		if s.exclusiveMinimum != nil && f <= *s.exclusiveMinimum {
			return at("%s must be above %v", num, *s.exclusiveMinimum)
		}
		if s.maximum != nil && f > *s.maximum {
			return at("%s is above the maximum %v", num, *s.maximum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return at("want true or false, not %s", jsonKind(v))
		}
	}
	return nil
}

// count is n things, in the plural unless n is 1.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonKind names the JSON type of a decoded value, for an error.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + v.String()
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}
