package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLostServerNamesTheLogFile: when the session's server is killed, the
// attached terminal is given back with one sentence that names the log
// file to read, on the normal screen.
func TestLostServerNamesTheLogFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 30, "")
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "│"+strings.TrimSpace(prompt)) }, "the shell prompt in the main view")
	servers := h.servers()
	if len(servers) != 1 {
		t.Fatalf("session servers %v, want one", servers)
	}
	if err := syscall.Kill(servers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	want := "lost the connection to session " + h.session + " (its server ended without a word; see the log file " +
		filepath.Join(h.home, ".state", "agentgrid", "agentgrid.log") + ")"
	h.waitFor(15*time.Second, func() bool {
		// The message wraps at the terminal's width, even inside the
		// path: compare without the white space.
		return strings.Contains(strings.Join(strings.Fields(h.capture()), ""), strings.Join(strings.Fields(want), "")) &&
			strings.TrimSpace(h.mustTmux("display-message", "-p", "-t", "e2e", "#{alternate_on}")) == "0"
	}, "the message naming the log file, on the normal screen")
}
