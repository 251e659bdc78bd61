package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/themes"
)

// The session reads user themes from the same config directory the config
// is read from and validated against: a theme that `config check` accepts
// is the one the session draws with, whatever XDG_CONFIG_HOME holds (a
// relative value is ignored everywhere; the session once used it for
// themes alone and failed to start on a theme the config had accepted).
func TestSessionThemeFromTheConfigDirectory(t *testing.T) {
	home := t.TempDir()
	t.Chdir(t.TempDir())
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	for _, xdg := range []string{"", "relative", filepath.Join(home, "xdg")} {
		t.Run("XDG_CONFIG_HOME="+xdg, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", xdg)
			dir := filepath.Join(home, ".config", "agentgrid")
			if filepath.IsAbs(xdg) {
				dir = filepath.Join(xdg, "agentgrid")
			}
			if err := os.MkdirAll(filepath.Join(dir, "themes"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "themes", "mine.toml"), []byte("base = \"light\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[ui]\ntheme = \"mine\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			loaded, err := config.Read("")
			if err != nil || len(loaded.Diags) > 0 || loaded.Config.UI.Theme != "mine" {
				t.Fatalf("config.Read: theme %q, %v %v", loaded.Config.UI.Theme, loaded.Diags, err)
			}
			got, err := sessionPalette(loaded.Config)
			if err != nil {
				t.Fatalf("the session cannot load the theme the config accepted: %v", err)
			}
			if want, _ := themes.Builtin("light"); got.Fg != want.Fg || got.Bg != want.Bg {
				t.Errorf("the session's palette is not the user theme (based on light): fg %q bg %q", got.Fg, got.Bg)
			}
		})
	}
}
