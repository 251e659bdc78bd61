package config

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary documents to the loader's decoding path: it
// must not panic, every diagnostic must say something about this file and
// a line inside it, a document with no diagnostics must pass Validate, and
// the config it gives must print as TOML that reads back to the same
// config. The seeds are in testdata/fuzz/FuzzDecode; `go test` runs them,
// `make fuzz` explores.
func FuzzDecode(f *testing.F) {
	f.Add(ExampleTOML())
	f.Add("[layout]\nmain_size = \"x\"\n[[startup]]\nkind = 3\n")
	f.Add("a = [\n\"\"\"\n]\n[x.'y'.\"z\"]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		cfg, diags := Decode(Default(), "f.toml", []byte(doc))
		n := strings.Count(doc, "\n") + 1
		for _, d := range diags {
			if strings.TrimSpace(d.Msg) == "" {
				t.Fatalf("a diagnostic without a message: %#v", d)
			}
			if d.File != "f.toml" && d.File != "" {
				t.Fatalf("diagnostic for another file: %v", d)
			}
			if d.Line > n {
				t.Fatalf("line %d past the end (%d lines): %v", d.Line, n, d)
			}
		}
		if len(diags) > 0 {
			return
		}
		if ds := Validate(cfg); len(ds) > 0 {
			t.Fatalf("decoded without problems but Validate reports %v", ds)
		}
		printed := Print(cfg)
		back, ds := Decode(Default(), "printed.toml", []byte(printed))
		if len(ds) > 0 {
			t.Fatalf("the printed config has problems %v:\n%s", ds, printed)
		}
		if !reflect.DeepEqual(normalizeForCompare(back), normalizeForCompare(cfg)) {
			t.Fatalf("the printed config reads back differently:\n got %+v\nwant %+v", back, cfg)
		}
	})
}

// normalizeForCompare treats nil and empty slices and maps alike: TOML
// cannot tell them apart.
func normalizeForCompare(c Config) Config {
	norm := func(s []string) []string {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	normMap := func(m map[string]string) map[string]string {
		if len(m) == 0 {
			return nil
		}
		return m
	}
	c.Orchestrator.Command = norm(c.Orchestrator.Command)
	if len(c.Limits.Kinds) == 0 {
		c.Limits.Kinds = nil
	}
	var st []Startup
	for _, s := range c.Startup {
		s.Command, s.Env = norm(s.Command), normMap(s.Env)
		st = append(st, s)
	}
	c.Startup = st
	var hs []Hook
	for _, h := range c.Hooks {
		h.On, h.Run = norm(h.On), norm(h.Run)
		hs = append(hs, h)
	}
	c.Hooks = hs
	kinds := map[string]Kind{}
	for n, k := range c.Kinds {
		k.Command, k.PromptArgs, k.Env = norm(k.Command), norm(k.PromptArgs), normMap(k.Env)
		kinds[n] = k
	}
	c.Kinds = kinds
	return c
}
