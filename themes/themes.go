// Package themes turns palette tokens into the one Styles struct the UI
// draws with. The built-in themes (dark, light, solarized, gruvbox, nord,
// high-contrast) are TOML files embedded in the binary; user themes are
// TOML files with the same tokens in the user's theme directory. "auto" is
// not a palette but a choice the UI makes: light or dark after the outer
// terminal's background (Pick).
package themes

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

//go:embed dark.toml light.toml solarized.toml gruvbox.toml nord.toml high-contrast.toml
var builtinFS embed.FS

// Auto is the theme setting that follows the outer terminal: light on a
// light background, dark otherwise.
const Auto = "auto"

// Palette is a theme's colour tokens. Each is "#rrggbb", "#rgb", an ANSI
// colour index "0".."255", or "" for the terminal's default colour.
type Palette struct {
	Fg     string `toml:"foreground"`
	Bg     string `toml:"background"`
	Muted  string `toml:"muted"`
	Accent string `toml:"accent"`

	// Pane borders: normal, focused, and an agent waiting for input.
	Border        string `toml:"border"`
	BorderFocus   string `toml:"border_focused"`
	BorderWaiting string `toml:"border_waiting"`
	Title         string `toml:"title"`

	// State badges, one per agent state plus queued.
	Pending  string `toml:"badge_pending"`
	Starting string `toml:"badge_starting"`
	Running  string `toml:"badge_running"`
	Waiting  string `toml:"badge_waiting"`
	Idle     string `toml:"badge_idle"`
	Done     string `toml:"badge_done"`
	Failed   string `toml:"badge_failed"`
	Killed   string `toml:"badge_killed"`
	Queued   string `toml:"badge_queued"`

	// The status line.
	StatusBg     string `toml:"status_bg"`
	StatusFg     string `toml:"status_fg"`
	StatusCounts string `toml:"status_counts"`
	StatusEntry  string `toml:"status_entry"`
	StatusStale  string `toml:"status_stale"`

	// Overlays (agents list, help, prompts).
	OverlayBg       string `toml:"overlay_bg"`
	OverlayFg       string `toml:"overlay_fg"`
	OverlayBorder   string `toml:"overlay_border"`
	OverlaySelected string `toml:"overlay_selected"`

	HelpKey  string `toml:"help_key"`
	HelpDesc string `toml:"help_desc"`
	// Notice colours the one-line "terminal too small" message.
	Notice string `toml:"notice"`
	Error  string `toml:"error"`
}

// Names returns the built-in theme names, in the order the UI cycles them.
func Names() []string {
	return []string{"dark", "light", "solarized", "gruvbox", "nord", "high-contrast"}
}

// UserNames returns the names of the user themes in dir (one NAME.toml
// each), sorted, leaving out files that share a built-in's name: those
// shadow the built-in and are cycled in its place. An unreadable or
// missing directory has none.
func UserNames(dir string) []string {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if !ok || name == "" || e.IsDir() || slices.Contains(Names(), name) || name == Auto {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Pick is the built-in theme "auto" stands for on a terminal whose
// background is bg (nil when the terminal did not say): light on a light
// background, dark on anything else.
func Pick(bg color.Color) string {
	if bg != nil && luminance(bg) > 0.5 {
		return "light"
	}
	return "dark"
}

// Tokens returns every token name a theme file may set, in file order.
func Tokens() []string {
	t := reflect.TypeFor[Palette]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, t.Field(i).Tag.Get("toml"))
	}
	return out
}

// Token returns the colour of a token by its file name, and whether the
// token exists.
func (p Palette) Token(name string) (string, bool) {
	f, ok := tokenField(name)
	if !ok {
		return "", false
	}
	return reflect.ValueOf(p).Field(f).String(), true
}

func tokenField(name string) (int, bool) {
	i := slices.Index(Tokens(), name)
	return i, i >= 0
}

// Badge returns the badge colour of an agent state ("" for unknown states).
func (p Palette) Badge(state string) string {
	c, _ := p.Token("badge_" + state)
	return c
}

// Builtin returns a built-in palette by name (one of Names).
func Builtin(name string) (Palette, bool) {
	if !slices.Contains(Names(), name) {
		return Palette{}, false
	}
	data, err := builtinFS.ReadFile(name + ".toml")
	if err != nil {
		return Palette{}, false
	}
	p, err := parse(name+".toml", data, nil)
	if err != nil {
		// The embedded files are checked by the tests; failing here means a
		// broken build, so fail loudly.
		panic(fmt.Sprintf("built-in theme %s is invalid: %v", name, err))
	}
	return p, true
}

// Load returns the palette called name: the user theme userDir/NAME.toml
// when that file exists (so a user file may shadow a built-in), otherwise
// the built-in theme. A user theme may set `base = "dark"` or any built-in
// (default dark) and only the tokens it changes; unknown tokens and bad
// colours are errors, all reported at once as "file:line: message".
func Load(name, userDir string) (Palette, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return Palette{}, fmt.Errorf("theme name %q is not valid; use a built-in theme (%s) or the name of a file in the themes directory", name, strings.Join(Names(), ", "))
	}
	if userDir != "" {
		path := filepath.Join(userDir, name+".toml")
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			return Parse(path, data)
		case !errors.Is(err, fs.ErrNotExist):
			return Palette{}, fmt.Errorf("read theme %s: %w", path, err)
		}
	}
	if p, ok := Builtin(name); ok {
		return p, nil
	}
	where := "no themes directory is known"
	if userDir != "" {
		where = filepath.Join(userDir, name+".toml") + " does not exist"
	}
	return Palette{}, fmt.Errorf("unknown theme %q: not built in (%s) and %s", name, strings.Join(Names(), ", "), where)
}

// Parse decodes a user theme file; file names it in error messages.
func Parse(file string, data []byte) (Palette, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// The line from the byte offset: the decoder's line number is one
			// too far when the offending character is the line's own break.
			line := pe.Position.Line
			if s := pe.Position.Start; s >= 0 && s <= len(data) {
				line = 1 + bytes.Count(data[:s], []byte("\n"))
			}
			return Palette{}, fmt.Errorf("%s:%d: TOML syntax: %s", file, line, pe.Message)
		}
		return Palette{}, fmt.Errorf("%s: TOML syntax: %v", file, err)
	}
	base := "dark"
	if b, ok := raw["base"]; ok {
		s, isStr := b.(string)
		if !isStr || !slices.Contains(Names(), s) {
			return Palette{}, fmt.Errorf("%s:%d: base = %v: must be one of %s", file, keyLine(data, "base"), b, strings.Join(Names(), ", "))
		}
		base = s
	}
	delete(raw, "base")
	p, _ := Builtin(base)
	return parse(file, data, &p)
}

// parse applies the tokens of a theme file to base (nil: every token is
// required, as for the built-in files).
func parse(file string, data []byte, base *Palette) (Palette, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return Palette{}, fmt.Errorf("%s: TOML syntax: %v", file, err)
	}
	var p Palette
	if base != nil {
		p = *base
	}
	rv := reflect.ValueOf(&p).Elem()
	var errs []error
	fail := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", file, keyLine(data, key), fmt.Sprintf(format, args...)))
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return keyLine(data, a) - keyLine(data, b) })
	for _, k := range keys {
		if k == "base" && base != nil {
			continue
		}
		f, ok := tokenField(k)
		if !ok {
			fail(k, "unknown token %q", k)
			continue
		}
		s, ok := raw[k].(string)
		if !ok {
			fail(k, "%s: expected a colour string such as \"#89b4fa\" or \"4\", got %v", k, raw[k])
			continue
		}
		if err := checkColor(s); err != nil {
			fail(k, "%s = %q: %v", k, s, err)
			continue
		}
		rv.Field(f).SetString(s)
	}
	if base == nil {
		for _, tok := range Tokens() {
			if _, ok := raw[tok]; !ok {
				errs = append(errs, fmt.Errorf("%s: token %q is missing", file, tok))
			}
		}
	}
	if len(errs) > 0 {
		return Palette{}, errors.Join(errs...)
	}
	return p, nil
}

// checkColor accepts "#rgb", "#rrggbb", "0".."255" and "" (default).
func checkColor(s string) error {
	switch {
	case s == "":
		return nil
	case strings.HasPrefix(s, "#"):
		if _, ok := parseHex(s); !ok {
			return errors.New("not a #rrggbb or #rgb colour")
		}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 255 {
		return errors.New(`not a colour; use "#rrggbb", "#rgb", an ANSI index 0..255, or "" for the default`)
	}
	return nil
}

// keyLine finds the line of a top-level key in a flat theme file (0 if not
// found); the TOML library does not expose positions.
func keyLine(data []byte, key string) int {
	re := regexp.MustCompile(`^\s*(` + regexp.QuoteMeta(key) + `|"` + regexp.QuoteMeta(key) + `")\s*=`)
	for i, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) {
			return i + 1
		}
	}
	return 0
}
