package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSchemaChecksEveryKeyword: the server's check of a tool's arguments
// holds each keyword the tools' schemas use, names the argument at fault,
// and takes what the schema allows.
func TestSchemaChecksEveryKeyword(t *testing.T) {
	s, err := parseSchema([]byte(`{
  "type": "object", "additionalProperties": false, "required": ["id"],
  "properties": {
    "id": {"type": "string", "minLength": 1, "maxLength": 4},
    "n": {"type": "integer", "minimum": 0, "maximum": 10},
    "t": {"type": "number", "exclusiveMinimum": 0},
    "b": {"type": "boolean"},
    "e": {"type": "string", "enum": ["x", "y"]},
    "p": {"type": "string", "pattern": "^[0-9]+s$"},
    "ids": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 2},
    "env": {"type": "object", "additionalProperties": {"type": "string"}}
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{
		`{"id":"a1"}`, `{"id":"日本語x"}`, `{"id":"a","n":10,"t":0.001,"b":false,"e":"y","p":"30s","ids":["a","b"],"env":{"K":"v"}}`, `{"id":"a","n":2.0}`,
	} {
		if err := s.checkArguments(json.RawMessage(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for args, want := range map[string]string{
		`{}`:                             `missing the required argument "id"`,
		`[]`:                             "must be a JSON object",
		`{"id":7}`:                       "id: want a string",
		`{"id":""}`:                      "id: needs at least 1 character",
		`{"id":"abcde"}`:                 "id: takes at most 4 characters",
		`{"id":"a","x":1}`:               `unknown argument "x"`,
		`{"id":"a","n":1.5}`:             "n: want a whole number",
		`{"id":"a","n":-1}`:              "n: -1 is below the minimum 0",
		`{"id":"a","n":11}`:              "n: 11 is above the maximum 10",
		`{"id":"a","n":"1"}`:             "n: want a number",
		`{"id":"a","t":0}`:               "t: 0 must be above 0",
		`{"id":"a","b":"yes"}`:           "b: want true or false",
		`{"id":"a","e":"z"}`:             `e: "z" is not one of`,
		`{"id":"a","p":"soon"}`:          `p: "soon" does not match`,
		`{"id":"a","ids":[]}`:            "ids: needs at least 1 item,",
		`{"id":"a","ids":["a",""]}`:      "ids[1]: needs at least 1 character",
		`{"id":"a","ids":"a"}`:           "ids: want an array",
		`{"id":"a","ids":["a","b","c"]}`: "ids: takes at most 2 items",
		`{"id":"a","env":{"K":1}}`:       "env.K: want a string",
		`{"id":"a","n":1e999}`:           "n: 1e999 is out of range",
	} {
		err := s.checkArguments(json.RawMessage(args))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", args, err, want)
		}
	}
	if _, err := parseSchema([]byte(`{"type": "string", "format": "uri"}`)); err == nil {
		t.Error("a keyword the server does not check was taken")
	}
}
