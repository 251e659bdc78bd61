package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startSessionCmd runs the root command (a session start) with args, in an
// empty config home, and returns its error.
func startSessionCmd(t *testing.T, args ...string) error {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("AGENTGRID_SOCKET", "")
	root := newRootCmd("test")
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	return root.Execute()
}

// TestRecordToAnUnwritablePathStopsTheStart: --record FILE that cannot be
// written ends the start with one sentence naming the file and why, before
// a session runs (it used to start and show the failure only as a passing
// notice); a writable path passes and is left as it was.
func TestRecordToAnUnwritablePathStopsTheStart(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--record", filepath.Join(dir, "no", "such", "dir", "x.cast")},
		{"--record", "/proc/agentgrid.cast"},
		{"demo", "--record", filepath.Join(dir, "no", "such", "dir", "x.cast")}, // people giving demos record them
	} {
		path := args[len(args)-1]
		err := startSessionCmd(t, args...)
		var ee exitError
		if !errors.As(err, &ee) || ee.code != 1 || !strings.HasPrefix(ee.msg, "cannot record to "+path+": ") ||
			!strings.HasSuffix(ee.msg, "; give --record a file in a folder you can write") || strings.Contains(ee.msg, "\n") {
			t.Errorf("--record %s: %v", path, err)
		}
	}
	// A writable path gets as far as the terminal check, and no file is
	// left behind.
	ok := filepath.Join(dir, "ok.cast")
	err := startSessionCmd(t, "--record", ok)
	if err == nil || !strings.Contains(err.Error(), "a session needs a terminal") {
		t.Errorf("--record %s without a terminal: %v", ok, err)
	}
	if _, err := os.Lstat(ok); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the check left %s behind: %v", ok, err)
	}
}

// TestConfigProblemsCountedInWords: a session refused for its config counts
// the problems in words ("1 problem", "2 problems"), not "problem(s)".
func TestConfigProblemsCountedInWords(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.toml")
	two := filepath.Join(dir, "two.toml")
	if err := os.WriteFile(one, []byte("[ui]\ntheme = \"nosuch\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(two, []byte("[bogus]\nx = 1\n[layout]\nname = \"foo\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		one: "the config has 1 problem; fix it (agentgrid config check) and start again",
		two: "the config has 2 problems; fix them (agentgrid config check) and start again",
	} {
		err := startSessionCmd(t, "--config", file)
		if err == nil || err.Error() != want {
			t.Errorf("--config %s: %v; want %q", filepath.Base(file), err, want)
		}
	}
}

// TestUnknownFlagIsAUsageError: a mistyped flag of the session or of any
// command exits 2 and names the whole command whose help to read (not
// "agentgrid check" for agentgrid config check).
func TestUnknownFlagIsAUsageError(t *testing.T) {
	for args, want := range map[string]string{
		"--theme nord":         "unknown flag: --theme; see agentgrid --help",
		"config check --bogus": "unknown flag: --bogus; see agentgrid config check --help",
		"trust --bogus":        "unknown flag: --bogus; see agentgrid trust --help",
		"loop stop a1 --bogus": "unknown flag: --bogus; see agentgrid loop stop --help",
	} {
		err := startSessionCmd(t, strings.Fields(args)...)
		var ee exitError
		if !errors.As(err, &ee) || ee.code != exitUsage || ee.msg != want {
			t.Errorf("agentgrid %s: %#v; want exit 2 with %q", args, err, want)
		}
	}
}
