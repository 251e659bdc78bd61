package config

import (
	"bytes"
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
// ~/.config/agentgrid when XDG_CONFIG_HOME is unset or relative. It holds
// config.toml and the user themes (ThemeDir). It is empty when neither can
// be determined.
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

// Loaded is the result of Read: the effective config and how it was made.
type Loaded struct {
	Config Config
	// Diags are the problems found; any diagnostic means the config is only
	// partly read and no session may start with it.
	Diags []Diagnostic
	// Files are the config files applied, in the order they were merged.
	Files []string
	// Ignored are project files that exist but were not applied.
	Ignored []Ignored
}

// Ignored is a per-directory config file that was not applied, and why.
type Ignored struct {
	Path string
	// Msg is one line for the user: which file, why, and what applies it.
	Msg string
}

// Load is Read without the list of files: the effective config, every
// problem found, and an error for a file that cannot be read or is unsafe.
func Load(explicitPath string) (Config, []Diagnostic, error) {
	l, err := Read(explicitPath)
	return l.Config, l.Diags, err
}

// Read builds the effective configuration: Default(), then every file of
// Paths(explicitPath) that exists, later files overriding earlier ones
// key by key ([[startup]] and [[hooks]] entries accumulate; [kinds.NAME]
// tables merge into the built-in kinds).
//
// Every config file must be a regular file owned by the user and not
// writable by group or others. The user file and the explicit file are the
// user's own choice and are applied as they are; one that fails the check
// is an error. The per-directory file (./.agentgrid.toml) may come with a
// repository or be planted in a shared directory, and it can start
// programs, so it is applied only when its content is trusted (see Trust);
// otherwise it is listed in Ignored, with the command that trusts it.
//
// Every problem in every applied file is collected, not just the first:
// unknown keys, wrong types and bad values, each with file:line. The error
// is only for files that cannot be read: an explicit path that does not
// exist, an unreadable or unsafe user or explicit file.
func Read(explicitPath string) (Loaded, error) {
	l := Loaded{Config: Default()}
	paths := Paths(explicitPath)
	ld := newLoader()
	for i, p := range paths {
		isExplicit := explicitPath != "" && i == len(paths)-1
		isLocal := p == LocalFile && !isExplicit
		if isLocal && explicitPath != "" && sameFile(p, explicitPath) {
			continue // given with --config: read once, as the user's own choice
		}
		data, err := readConfigFile(p)
		if err != nil {
			ue, unsafe := isUnsafe(err)
			switch {
			case errors.Is(err, fs.ErrNotExist) && !isExplicit:
				continue
			case errors.Is(err, fs.ErrNotExist):
				return l, fmt.Errorf("config file %s does not exist", p)
			case unsafe && isLocal:
				msg := fmt.Sprintf("ignored %s: it %s; agentgrid never applies it", p, ue.Why)
				if ue.Fix != "" {
					msg = fmt.Sprintf("ignored %s: it %s; to apply it: %s && agentgrid trust", p, ue.Why, ue.Fix)
				}
				l.Ignored = append(l.Ignored, Ignored{Path: p, Msg: msg})
				continue
			case unsafe:
				return l, err
			}
			return l, fmt.Errorf("read config file %s: %w", p, err)
		}
		if isLocal {
			switch checkTrust(p, data) {
			case untrusted:
				l.Ignored = append(l.Ignored, Ignored{Path: p, Msg: fmt.Sprintf("ignored %s (not trusted); to apply it: agentgrid trust", p)})
				continue
			case changedSinceTrusted:
				l.Ignored = append(l.Ignored, Ignored{Path: p, Msg: fmt.Sprintf("ignored %s (changed since trusted); to apply it: agentgrid trust", p)})
				continue
			}
		}
		ld.mergeFile(&l.Config, p, data)
		l.Files = append(l.Files, p)
	}
	diags := ld.diags
	for _, pr := range validate(l.Config, ThemeDir()) {
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
		l.Diags = diags
		return l, nil
	}
	l.Config.Keys.Prefix, _ = NormalizeKey(l.Config.Keys.Prefix)
	return l, nil
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	ca, err1 := canonicalPath(a)
	cb, err2 := canonicalPath(b)
	return err1 == nil && err2 == nil && ca == cb
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

// syntaxLine is the line of a TOML syntax error, counted from its byte
// offset: the decoder's own line number is one too far when the offending
// character is the line break that ends the faulty line ("[ui" then enter).
func syntaxLine(data []byte, pe toml.ParseError) int {
	if s := pe.Position.Start; s >= 0 && s <= len(data) {
		return 1 + bytes.Count(data[:s], []byte("\n"))
	}
	return pe.Position.Line
}

func newLoader() *loader { return &loader{origin: map[string]location{}} }

func (ld *loader) mergeFile(cfg *Config, file string, data []byte) {
	if d := checkShape(file, data); d != nil {
		ld.diags = append(ld.diags, *d)
		return
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			ld.diags = append(ld.diags, Diagnostic{File: file, Line: syntaxLine(data, pe), Msg: "TOML syntax: " + pe.Message})
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
