package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// isolate points the user config dir at an empty temp dir and runs the test
// in another empty temp dir, so no real config file leaks in.
func isolate(t *testing.T) (xdg, cwd string) {
	t.Helper()
	xdg, cwd = t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("XDG_STATE_HOME", filepath.Join(xdg, "state"))
	t.Chdir(cwd)
	return xdg, cwd
}

// writeTrusted writes a per-directory file and trusts it, as the user would.
func writeTrusted(t *testing.T, path, text string) {
	t.Helper()
	writeFile(t, path, text)
	if _, err := Trust(path); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExampleIsDefault(t *testing.T) {
	isolate(t)
	got, diags := Decode(Config{}, "example", []byte(ExampleTOML()))
	if len(diags) > 0 {
		t.Fatalf("example has problems: %v", diags)
	}
	if !reflect.DeepEqual(got, Default()) {
		t.Errorf("decoding ExampleTOML() differs from Default():\n got %+v\nwant %+v", got, Default())
	}
	// Merged over the defaults it changes nothing either.
	got, _ = Decode(Default(), "example", []byte(ExampleTOML()))
	if !reflect.DeepEqual(got, Default()) {
		t.Errorf("example over Default() changed it: %+v", got)
	}
}

// schemaKeys lists every key of a struct type as a dotted path; map keys
// are "*" and array-of-table entries are addressed by the array's name.
func schemaKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		name := tomlName(t.Field(i))
		if name == "" {
			continue
		}
		path := prefix + name
		ft := t.Field(i).Type
		switch {
		case ft == reflect.TypeFor[Duration]():
			out = append(out, path)
		case ft.Kind() == reflect.Struct:
			out = append(out, schemaKeys(ft, path+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, schemaKeys(ft.Elem(), path+".")...)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			out = append(out, schemaKeys(ft.Elem(), path+".*.")...)
		case ft.Kind() == reflect.Map:
			// A map of plain values is documented by its table or inline
			// table ([limits.kinds], env = {...}).
			out = append(out, path)
		default:
			out = append(out, path)
		}
	}
	return out
}

// exampleKeys collects "table.key" for every key line of the example,
// commented or not, so that documented-only keys ([[startup]]) count.
func exampleKeys(text string) []string {
	header := regexp.MustCompile(`^\[\[?([a-z_.0-9]+)\]\]?$`)
	keyLine := regexp.MustCompile(`^([a-z_0-9]+)\s*=`)
	var table string
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if m := header.FindStringSubmatch(line); m != nil {
			table = m[1]
			out = append(out, table)
			continue
		}
		if m := keyLine.FindStringSubmatch(line); m != nil {
			out = append(out, table+"."+m[1])
		}
	}
	return out
}

func TestExampleMentionsEveryKey(t *testing.T) {
	found := exampleKeys(ExampleTOML())
	matches := func(pattern string) bool {
		re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, `[a-z_0-9]+`) + "$")
		for _, f := range found {
			if re.MatchString(f) {
				return true
			}
		}
		return false
	}
	keys := schemaKeys(reflect.TypeFor[Config](), "")
	if len(keys) < 30 {
		t.Fatalf("schema walk found only %d keys: %v", len(keys), keys)
	}
	for _, k := range keys {
		if !matches(k) {
			t.Errorf("ExampleTOML() does not document %s", k)
		}
	}
}

func TestPrintRoundTrip(t *testing.T) {
	isolate(t)
	cfg := Default()
	cfg.Layout.Name = "tiled"
	cfg.Limits.Kinds = map[string]int{"claude": 2}
	cfg.Startup = []Startup{{Title: "t", Command: []string{"sh", "-c", "echo hi"}, Env: map[string]string{"A": "1"}}}
	cfg.Hooks = []Hook{{On: []string{"bell"}, Run: []string{"true"}, Timeout: Duration{3 * time.Second}}}
	cfg.Limits.Models = map[string]int{"gpt-4.1": 1, "claude-opus-4-5": 2}
	cfg.Limits.Providers = map[string]int{"anthropic": 5}
	cfg.Categories = map[string]Category{"quick": {Kind: "claude", Model: "claude-haiku-4-5", PromptPrefix: "Small. ", Fallback: []string{"codex"},
		RetryOn: []string{"rate_limit"}, Backoff: Duration{30 * time.Second}, MaxTries: 2, Description: "small changes"}}
	text := Print(cfg)
	got, diags := Decode(Config{}, "printed", []byte(text))
	if len(diags) > 0 {
		t.Fatalf("printed config has problems: %v\n%s", diags, text)
	}
	if !reflect.DeepEqual(got, cfg) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v\n%s", got, cfg, text)
	}
}

func TestDiagnosticString(t *testing.T) {
	cases := map[string]Diagnostic{
		"a.toml:3: bad":   {File: "a.toml", Line: 3, Msg: "bad"},
		"a.toml: bad":     {File: "a.toml", Msg: "bad"},
		"bad":             {Msg: "bad"},
		"/x/y.toml:12: m": {File: "/x/y.toml", Line: 12, Msg: "m"},
	}
	for want, d := range cases {
		if got := d.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

func TestPaths(t *testing.T) {
	xdg, _ := isolate(t)
	want := []string{filepath.Join(xdg, "agentgrid", "config.toml"), ".agentgrid.toml"}
	if got := Paths(""); !slices.Equal(got, want) {
		t.Errorf("Paths(\"\") = %v, want %v", got, want)
	}
	if got := Paths("/x.toml"); !slices.Equal(got, append(want, "/x.toml")) {
		t.Errorf("Paths(explicit) = %v", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if got := Paths("")[0]; got != "/home/someone/.config/agentgrid/config.toml" {
		t.Errorf("without XDG_CONFIG_HOME: %q", got)
	}
	if got := ThemeDir(); got != "/home/someone/.config/agentgrid/themes" {
		t.Errorf("ThemeDir() = %q", got)
	}
}

func TestLoadMergesInOrder(t *testing.T) {
	xdg, cwd := isolate(t)
	writeFile(t, filepath.Join(xdg, "agentgrid", "config.toml"), `
[layout]
name = "tiled"
main_size = 60
[kinds.claude]
mcp = false
[[hooks]]
on = ["bell"]
run = ["true"]
`)
	writeTrusted(t, filepath.Join(cwd, ".agentgrid.toml"), `
[layout]
main_size = 70
[[startup]]
title = "one"
kind = "claude"
[[hooks]]
on = ["agent_exited"]
run = ["echo"]
`)
	explicit := filepath.Join(t.TempDir(), "extra.toml")
	writeFile(t, explicit, `
keys.prefix = "Alt+Ctrl+a"
[ui]
theme = "light"
[[startup]]
title = "two"
command = ["sh"]
`)
	cfg, diags, err := Load(explicit)
	if err != nil || len(diags) > 0 {
		t.Fatalf("Load: %v %v", err, diags)
	}
	want := Default()
	want.Layout.Name, want.Layout.MainSize = "tiled", 70
	claude := want.Kinds["claude"]
	claude.MCP = false
	want.Kinds["claude"] = claude
	want.Keys.Prefix = "ctrl+alt+a"
	want.UI.Theme = "light"
	want.Startup = []Startup{{Title: "one", Kind: "claude"}, {Title: "two", Command: []string{"sh"}}}
	want.Hooks = []Hook{{On: []string{"bell"}, Run: []string{"true"}}, {On: []string{"agent_exited"}, Run: []string{"echo"}}}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("merged config:\n got %+v\nwant %+v", cfg, want)
	}
}

func TestLoadNoFiles(t *testing.T) {
	isolate(t)
	cfg, diags, err := Load("")
	if err != nil || len(diags) > 0 || !reflect.DeepEqual(cfg, Default()) {
		t.Fatalf("Load with no files: %v %v %+v", err, diags, cfg)
	}
}

func TestLoadExplicitMissing(t *testing.T) {
	isolate(t)
	_, diags, err := Load("/nonexistent/agentgrid.toml")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/agentgrid.toml does not exist") || len(diags) > 0 {
		t.Fatalf("want a does-not-exist error, got %v %v", err, diags)
	}
}

func TestLoadUserTheme(t *testing.T) {
	xdg, cwd := isolate(t)
	writeTrusted(t, filepath.Join(cwd, ".agentgrid.toml"), "[ui]\ntheme = \"solar\"\n")
	_, diags, err := Load("")
	if err != nil || len(diags) != 1 || diags[0].Line != 2 || !strings.Contains(diags[0].Msg, "solar") {
		t.Fatalf("missing user theme: %v %v", err, diags)
	}
	writeFile(t, filepath.Join(xdg, "agentgrid", "themes", "solar.toml"), "")
	if _, diags, err := Load(""); err != nil || len(diags) > 0 {
		t.Fatalf("user theme present: %v %v", err, diags)
	}
}

// TestLoadReportsEverything checks that problems in several files are all
// reported at once, in file order, with the right lines.
func TestLoadReportsEverything(t *testing.T) {
	xdg, cwd := isolate(t)
	user := filepath.Join(xdg, "agentgrid", "config.toml")
	writeFile(t, user, "[layout]\nmian_size = 50\nname = \"spiral\"\n")
	writeTrusted(t, filepath.Join(cwd, ".agentgrid.toml"), "[ui]\nfps = = 3\n")
	explicit := filepath.Join(cwd, "x.toml")
	writeFile(t, explicit, "[agents]\nkill_grace = \"soon\"\n")
	_, diags, err := Load(explicit)
	if err != nil {
		t.Fatalf("err = %v; problems in files are diagnostics, not an error", err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	want := []string{
		user + `:2: unknown key "layout.mian_size"`,
		user + `:3: layout.name = "spiral": unknown layout`,
		".agentgrid.toml:2: TOML syntax",
		explicit + `:2: agents.kill_grace: "soon" is not a duration`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("diagnostic %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}
