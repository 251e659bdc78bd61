package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runRoot runs the real root command (session, demo, client and watch
// commands) in-process.
func runRoot(t *testing.T, args ...string) cliResult {
	t.Helper()
	root := newRootCmd("dev")
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := root.ExecuteContext(ctx)
	code := 0
	if err != nil {
		code = 1
		var ee exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		errb.WriteString("agentgrid: " + err.Error() + "\n")
	}
	return cliResult{out.String(), errb.String(), code}
}

// TestSessionNameEveryEntryPoint gives each place that takes a session name
// names that would escape the state or socket directory, or that are not one
// plain file name: each is refused with the list of allowed characters
// before anything is created.
func TestSessionNameEveryEntryPoint(t *testing.T) {
	state, runtime, cfgHome := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(state, "a", "b", "state"))
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("AGENTGRID_SOCKET", "")
	long := strings.Repeat("x", 65)
	names := []string{"../../x", "a/b", "", long, "..", ".", "-x", "a b", "é", "a\x1b[2Jb"}
	const allowed = "letters, digits, '.', '_' or '-'"
	for _, name := range names {
		for _, args := range [][]string{
			{"--session", name},
			{"demo", "--session", name},
		} {
			r := runRoot(t, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, allowed) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("agentgrid %q: exit %d, stderr %q; want %d and one line naming the allowed characters", args, r.code, r.stderr, exitUsage)
			}
		}
		// A value with a slash names a socket path (documented); it is only
		// dialled. Everything else is a name and is checked.
		if strings.Contains(name, "/") {
			continue
		}
		for _, args := range [][]string{
			{"watch", "--", name},
			{"--socket", name, "list"},
		} {
			if name == "" && args[0] == "--socket" {
				continue // --socket "" means $AGENTGRID_SOCKET, as documented
			}
			r := runRoot(t, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, allowed) {
				t.Errorf("agentgrid %q: exit %d, stderr %q; want %d naming the allowed characters", args, r.code, r.stderr, exitUsage)
			}
		}
	}
	// Nothing was created anywhere: not the state directory, not the
	// directory the state directory's parent's parent, not the socket dir.
	for _, dir := range []string{state, runtime} {
		var found []string
		_ = filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
			if p != dir {
				found = append(found, p)
			}
			return nil
		})
		if len(found) > 0 {
			t.Errorf("bad session names created %v", found)
		}
	}
	// A valid name still reaches the next step (here: no such session).
	r := runRoot(t, "watch", "review-2.x_y")
	if r.code != 1 || strings.Contains(r.stderr, allowed) {
		t.Errorf("watch review-2.x_y: exit %d, stderr %q; want 1 (no session listening)", r.code, r.stderr)
	}
}
