package config

import (
	"path/filepath"
	"testing"
)

// DefaultShell is the one place that picks the program for an empty
// command: the orchestrator's and a kind's.
func TestDefaultShell(t *testing.T) {
	t.Setenv("SHELL", "/usr/bin/fish")
	if got := DefaultShell(); got != "/usr/bin/fish" {
		t.Errorf("DefaultShell() with SHELL set = %q, want /usr/bin/fish", got)
	}
	t.Setenv("SHELL", "")
	if got := DefaultShell(); got != "/bin/sh" {
		t.Errorf("DefaultShell() with SHELL empty = %q, want /bin/sh", got)
	}
}

// StateDir holds the sessions' folders, the log file and the trust store;
// the session, the hook and the trust commands all take it from here.
func TestStateDir(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct{ xdg, home, want string }{
		{"/var/state", home, "/var/state/agentgrid"},
		{"", home, filepath.Join(home, ".local", "state", "agentgrid")},
		{"relative", home, filepath.Join(home, ".local", "state", "agentgrid")},
		{"", "", ""},
		{"relative", "", ""},
	} {
		t.Setenv("XDG_STATE_HOME", tc.xdg)
		t.Setenv("HOME", tc.home)
		if got := StateDir(); got != tc.want {
			t.Errorf("StateDir() with XDG_STATE_HOME=%q HOME=%q = %q, want %q", tc.xdg, tc.home, got, tc.want)
		}
		env := map[string]string{"XDG_STATE_HOME": tc.xdg, "HOME": tc.home}
		if got := StateDirFrom(func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("StateDirFrom with XDG_STATE_HOME=%q HOME=%q = %q, want %q", tc.xdg, tc.home, got, tc.want)
		}
	}
	t.Setenv("XDG_STATE_HOME", "/var/state")
	if got, want := TrustDir(), filepath.Join("/var/state/agentgrid", TrustDirName); got != want {
		t.Errorf("TrustDir() = %q, want %q (inside StateDir)", got, want)
	}
}

// Dir holds config.toml and the themes; the config, `config` commands and
// the session's theme all take it from here.
func TestConfigDir(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct{ xdg, home, want string }{
		{"/etc/xdg-user", home, "/etc/xdg-user/agentgrid"},
		{"", home, filepath.Join(home, ".config", "agentgrid")},
		{"relative", home, filepath.Join(home, ".config", "agentgrid")},
		{"", "", ""},
	} {
		t.Setenv("XDG_CONFIG_HOME", tc.xdg)
		t.Setenv("HOME", tc.home)
		if got := Dir(); got != tc.want {
			t.Errorf("Dir() with XDG_CONFIG_HOME=%q HOME=%q = %q, want %q", tc.xdg, tc.home, got, tc.want)
		}
		wantThemes := ""
		if tc.want != "" {
			wantThemes = filepath.Join(tc.want, "themes")
		}
		if got := ThemeDir(); got != wantThemes {
			t.Errorf("ThemeDir() with XDG_CONFIG_HOME=%q HOME=%q = %q, want %q", tc.xdg, tc.home, got, wantThemes)
		}
	}
}
