package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Diagnostic is one problem found in a config file.
type Diagnostic struct {
	// File is the path the problem was found in; empty for problems found by
	// Validate in a config that did not come from a file.
	File string
	// Line is 1-based; 0 when unknown.
	Line int
	Msg  string
}

// String formats the diagnostic as "file:line: msg", leaving out the parts
// that are unknown.
func (d Diagnostic) String() string {
	switch {
	case d.File == "":
		return d.Msg
	case d.Line <= 0:
		return d.File + ": " + d.Msg
	}
	return d.File + ":" + strconv.Itoa(d.Line) + ": " + d.Msg
}

// LocalFile is the per-directory config file, read from the working directory.
const LocalFile = ".agentgrid.toml"

// Dir is agentgrid's config directory: $XDG_CONFIG_HOME/agentgrid, or
// ~/.config/agentgrid when XDG_CONFIG_HOME is unset. It is empty when
// neither can be determined.
func Dir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentgrid")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "agentgrid")
}

// ThemeDir is where user themes live: Dir()/themes, one NAME.toml per theme.
func ThemeDir() string {
	d := Dir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "themes")
}

// Paths returns the config files consulted, in the order they are merged:
// the user file, the per-directory file, then the explicit file if any.
func Paths(explicit string) []string {
	var out []string
	if d := Dir(); d != "" {
		out = append(out, filepath.Join(d, "config.toml"))
	}
	out = append(out, LocalFile)
	if explicit != "" {
		out = append(out, explicit)
	}
	return out
}

// Load builds the effective configuration: Default(), then every file of
// Paths(explicitPath) that exists, later files overriding earlier ones
// key by key ([[startup]] and [[hooks]] entries accumulate; [kinds.NAME]
// tables merge into the built-in kinds).
//
// Every problem in every file is collected, not just the first: unknown
// keys, wrong types and bad values, each with file:line. Any diagnostic
// means the config is only partly read: the caller must report them all and
// not start a session with it. The error is only for files that cannot be
// read: an explicit path that does not exist, or an unreadable file.
func Load(explicitPath string) (Config, []Diagnostic, error) {
	cfg := Default()
	paths := Paths(explicitPath)
	ld := newLoader()
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			isExplicit := explicitPath != "" && i == len(paths)-1
			if errors.Is(err, fs.ErrNotExist) && !isExplicit {
				continue
			}
			if errors.Is(err, fs.ErrNotExist) {
				return cfg, nil, fmt.Errorf("config file %s does not exist", p)
			}
			return cfg, nil, fmt.Errorf("read config file %s: %w", p, err)
		}
		ld.mergeFile(&cfg, p, data)
	}
	diags := ld.diags
	for _, pr := range validate(cfg, ThemeDir()) {
		diags = append(diags, ld.locate(pr))
	}
	order := func(file string) int {
		if i := slices.Index(paths, file); i >= 0 {
			return i
		}
		return len(paths)
	}
	slices.SortStableFunc(diags, func(a, b Diagnostic) int {
		if c := order(a.File) - order(b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	if len(diags) > 0 {
		return cfg, diags, nil
	}
	cfg.Keys.Prefix, _ = NormalizeKey(cfg.Keys.Prefix)
	return cfg, nil, nil
}

// Decode reads one TOML document on top of base, exactly as Load merges a
// file, and returns the result with every decoding problem and validation
// problem; name is used as the file name in diagnostics.
func Decode(base Config, name string, data []byte) (Config, []Diagnostic) {
	ld := newLoader()
	ld.mergeFile(&base, name, data)
	diags := ld.diags
	for _, pr := range validate(base, ThemeDir()) {
		diags = append(diags, ld.locate(pr))
	}
	slices.SortStableFunc(diags, func(a, b Diagnostic) int { return a.Line - b.Line })
	return base, diags
}

// loader merges files into a Config and remembers where each key was set,
// so that problems found after merging still point at a file and line.
type loader struct {
	diags  []Diagnostic
	origin map[string]location // merged key path -> where it was last set
}

type location struct {
	file string
	line int
}

func newLoader() *loader { return &loader{origin: map[string]location{}} }

func (ld *loader) mergeFile(cfg *Config, file string, data []byte) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			ld.diags = append(ld.diags, Diagnostic{File: file, Line: pe.Position.Line, Msg: "TOML syntax: " + pe.Message})
		} else {
			ld.diags = append(ld.diags, Diagnostic{File: file, Msg: "TOML syntax: " + err.Error()})
		}
		return
	}
	m := &merger{ld: ld, file: file, lines: scanLines(string(data))}
	m.value(raw, reflectValue(cfg), nil, nil)
}

// locate turns a validation problem about a merged key into a diagnostic
// pointing at the file and line that set the key (or its closest parent).
func (ld *loader) locate(pr problem) Diagnostic {
	for n := len(pr.path); n > 0; n-- {
		if loc, ok := ld.origin[strings.Join(pr.path[:n], ".")]; ok {
			return Diagnostic{File: loc.file, Line: loc.line, Msg: pr.msg}
		}
	}
	return Diagnostic{Msg: pr.msg}
}
