package orchestrator

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
)

// An agentgrid started inside tmux must not hand the outer tmux to its
// children: a program that splits "its" pane would split the user's outer
// window instead of asking agentgrid. Nor the outer terminal's name
// (TERM_PROGRAM=tmux): the child's terminal is agentgrid's emulator, and a
// program that believes it runs in tmux wraps its queries in tmux
// passthrough, which agentgrid drops as tmux does by default.
func TestChildrenNeverInheritTheOuterTmux(t *testing.T) {
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	env := append(os.Environ(), "TMUX=/tmp/outer-tmux/default,4242,0", "TMUX_PANE=%7", "TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.4")
	e, err := New(cfg, Options{Session: "test", Env: env, StateDir: t.TempDir(), Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	script := `echo "tmux=[${TMUX:-unset}] prog=[${TERM_PROGRAM:-unset} ${TERM_PROGRAM_VERSION:-unset}] pane=[${TMUX_PANE:-unset}]"; sleep 30`
	if err := e.Start(context.Background(), []string{"sh", "-c", script}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	e.Resize(120, 20)
	in := spawn(t, e, "sh", "-c", script)
	for _, id := range []string{"main", in.ID} {
		var text string
		pollUntil(t, 15*time.Second, id+" printing its tmux variables", func() bool {
			text, _ = e.Capture(id, false, 0)
			return strings.Contains(text, "pane=[")
		})
		if strings.Contains(text, "outer-tmux") || strings.Contains(text, "%7") || !strings.Contains(text, "prog=[unset unset]") {
			t.Fatalf("%s inherited the outer tmux: %q", id, text)
		}
	}
}
