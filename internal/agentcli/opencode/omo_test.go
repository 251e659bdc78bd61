package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// omoWire wires an OpenCode process with oh-my-opencode-slim's panes for a
// user whose config folder is home/.config, returning the added env.
func omoWire(t *testing.T, home string) ([]string, error) {
	t.Helper()
	t.Setenv("OPENCODE_CONFIG_DIR", "")
	w := testWiring(t)
	w.Teams = true
	_, env, err := (CLI{}).Wire(w, []string{"opencode"}, []string{"HOME=" + home, "XDG_CONFIG_HOME="})
	return env, err
}

// generatedSlim reads the oh-my-opencode-slim settings the process gets
// through OPENCODE_CONFIG_DIR.
func generatedSlim(t *testing.T, env []string) map[string]any {
	t.Helper()
	dir := lookupEnv(env, "OPENCODE_CONFIG_DIR")
	if dir == "" {
		t.Fatalf("no OPENCODE_CONFIG_DIR in %q", env)
	}
	b, err := os.ReadFile(filepath.Join(dir, "oh-my-opencode-slim.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return m
}

// [kinds.opencode] omo = true gives that process a copy of the user's
// oh-my-opencode-slim settings (JSONC read as the plugin reads it) with the
// multiplexer set to tmux, and leaves the user's file as it was.
func TestOMOSlimPanesForThisProcess(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".config", "opencode", "oh-my-opencode-slim.jsonc")
	src := `{
  // my presets
  "preset": "fast", /* the one I use */
  "presets": {"fast": {"orchestrator": {"model": "a/b"}}},
  "note": "http://x // not a comment, /* nor this */",
  "multiplexer": {"type": "none", "layout": "tiled", "main_pane_size": 40,},
  "disabled_agents": ["observer",],
}
`
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	env, err := omoWire(t, home)
	if err != nil {
		t.Fatal(err)
	}
	got := generatedSlim(t, env)
	want := map[string]any{
		"preset":          "fast",
		"presets":         map[string]any{"fast": map[string]any{"orchestrator": map[string]any{"model": "a/b"}}},
		"note":            "http://x // not a comment, /* nor this */",
		"multiplexer":     map[string]any{"type": "tmux", "layout": "tiled", "main_pane_size": 40.0},
		"disabled_agents": []any{"observer"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("generated settings\n%v\nwant\n%v", got, want)
	}
	dir := lookupEnv(env, "OPENCODE_CONFIG_DIR")
	for p, mode := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, filepath.Join(dir, "oh-my-opencode-slim.json"): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode(), mode, err)
		}
	}
	if b, _ := os.ReadFile(user); string(b) != src {
		t.Errorf("the user's file changed:\n%s", b)
	}
	// The inline config (plugin, MCP server) is still there.
	if !strings.Contains(strings.Join(env, "\n"), "OPENCODE_CONFIG_CONTENT=") {
		t.Errorf("no inline config: %q", env)
	}

	// A user without settings gets the multiplexer alone.
	env, err = omoWire(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := generatedSlim(t, env); !reflect.DeepEqual(got, map[string]any{"multiplexer": map[string]any{"type": "tmux"}}) {
		t.Errorf("without user settings: %v", got)
	}

	// Without omo nothing of it.
	w := testWiring(t)
	_, env, err = (CLI{}).Wire(w, []string{"opencode"}, nil)
	if err != nil || lookupEnv(env, "OPENCODE_CONFIG_DIR") != "" {
		t.Errorf("without omo: %q %v", env, err)
	}
}

// A user's own OPENCODE_CONFIG_DIR is never replaced, and settings the
// plugin could not read either stop the start with a message saying what
// to do.
func TestOMOSlimPanesRefusals(t *testing.T) {
	w := testWiring(t)
	w.Teams = true
	t.Setenv("OPENCODE_CONFIG_DIR", "/home/me/oc")
	if _, _, err := (CLI{}).Wire(w, []string{"opencode"}, nil); err == nil || !strings.Contains(err.Error(), "OPENCODE_CONFIG_DIR is already set (/home/me/oc)") {
		t.Errorf("with the user's OPENCODE_CONFIG_DIR: %v", err)
	}
	home := t.TempDir()
	p := filepath.Join(home, ".config", "opencode", "oh-my-opencode-slim.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"multiplexer": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := omoWire(t, home); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("broken settings: %v", err)
	}
}
