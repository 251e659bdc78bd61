package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoTerminalSaysSoOnce runs the session and watch without a terminal on
// stdin: the message names what needs one under a single "agentgrid:"
// prefix, never "agentgrid: agentgrid needs a terminal".
func TestNoTerminalSaysSoOnce(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("AGENTGRID_SOCKET", "")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin }()
	t.Chdir(t.TempDir())

	res := runRoot(t, "--session", "texts")
	if res.code != 1 || !strings.Contains(res.stderr, "agentgrid: a session needs a terminal on stdin and stdout") {
		t.Errorf("agentgrid without a terminal: exit %d, stderr %q", res.code, res.stderr)
	}
	res = runRoot(t, "watch", "--", filepath.Join(t.TempDir(), "some.sock"))
	if res.code != 1 || !strings.Contains(res.stderr, "agentgrid: watch needs a terminal on stdin and stdout") {
		t.Errorf("agentgrid watch without a terminal: exit %d, stderr %q", res.code, res.stderr)
	}
	for _, s := range []string{"agentgrid: agentgrid", "agentgrid: agentgrid watch"} {
		if strings.Contains(res.stderr, s) {
			t.Errorf("stderr %q repeats the program's name", res.stderr)
		}
	}
}
