package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// A program looping over tmux commands cannot grow the session without
// end: options, groups and held input are bounded, with a clear error.
func TestTmuxStateIsBounded(t *testing.T) {
	// A shell that never prints its prompt: input for it stays held.
	shell := filepath.Join(t.TempDir(), "quietsh")
	if err := os.WriteFile(shell, []byte("#!/bin/sh\nexec sleep 600\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	e, err := New(cfg, Options{Session: "test", Env: append(os.Environ(), "SHELL="+shell), StateDir: t.TempDir(), Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), []string{"sh", "-c", "exec sleep 600"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	e.Resize(120, 40)
	run := func(argv ...string) control.TmuxResult {
		return e.Tmux(context.Background(), control.FullControl, control.TmuxParams{Argv: argv, Pane: "%0"})
	}
	many := func(n int, cmd func(i int) []string) []string {
		var argv []string
		for i := range n {
			if i > 0 {
				argv = append(argv, ";")
			}
			argv = append(argv, cmd(i)...)
		}
		return argv
	}
	if r := run(many(maxTmuxOptions, func(i int) []string { return []string{"set-option", "-p", fmt.Sprintf("@o%d", i), "v"} })...); r.Exit != 0 {
		t.Fatalf("setting %d options failed: %+v", maxTmuxOptions, r)
	}
	if r := run("set-option", "-p", "@one-more", "v"); r.Exit != 1 || !strings.Contains(r.Stderr, "too many options") {
		t.Fatalf("one option too many = %+v", r)
	}
	if r := run("set-option", "-p", "@o1", "replaced"); r.Exit != 0 {
		t.Fatalf("replacing an option = %+v", r)
	}
	if r := run("set-option", "@big", strings.Repeat("x", maxOptionValue+1)); r.Exit != 1 {
		t.Fatalf("an oversized value = %+v", r)
	}
	if r := run(many(maxTmuxGroups, func(i int) []string { return []string{"new-session", "-d", "-s", fmt.Sprintf("g%d", i)} })...); r.Exit != 0 {
		t.Fatalf("making %d groups failed: %+v", maxTmuxGroups, r)
	}
	if r := run("new-session", "-d", "-s", "one-more"); r.Exit != 1 || !strings.Contains(r.Stderr, "too many sessions") {
		t.Fatalf("one group too many = %+v", r)
	}
	// Input held for it is bounded.
	r := run("split-window", "-d", "-P", "-F", "#{pane_id}")
	pane := strings.TrimSpace(r.Stdout)
	if r.Exit != 0 || pane == "" {
		t.Fatalf("split-window = %+v", r)
	}
	chunk := strings.Repeat("y", 64<<10)
	var last control.TmuxResult
	for range maxHeldInput/len(chunk) + 2 {
		if last = run("send-keys", "-t", pane, "-l", chunk); last.Exit != 0 {
			break
		}
	}
	if last.Exit != 1 || !strings.Contains(last.Stderr, "holds more than") {
		t.Fatalf("held input was not bounded: %+v", last)
	}
}
