package orchestrator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// fakeClaude writes a program that stands in for Claude Code: it records
// its arguments, turns bracketed paste on as Claude Code's prompt does,
// and records the first line typed into it.
func fakeClaude(t *testing.T) (prog, dir string) {
	t.Helper()
	dir = t.TempDir()
	prog = filepath.Join(dir, "claude")
	script := `#!/bin/sh
printf '%s\n' "$@" > "` + dir + `/args"
printf '\033[?2004hready>'
IFS= read -r line
printf '%s' "$line" > "` + dir + `/typed.tmp" && mv "` + dir + `/typed.tmp" "` + dir + `/typed"
exec sleep 600
`
	if err := os.WriteFile(prog, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return prog, dir
}

func claudeKind(prog string) func(*config.Config) {
	return func(c *config.Config) {
		k := c.Kinds["claude"]
		k.Command = []string{prog}
		c.Kinds["claude"] = k
	}
}

// waitPrompting waits until the fake CLI shows its prompt (bracketed
// paste is on from then).
func waitPrompting(t *testing.T, e *Engine, id string) {
	t.Helper()
	pollUntil(t, 15*time.Second, "the fake CLI's prompt", func() bool {
		s, err := e.Capture(id, false, 0)
		return err == nil && strings.Contains(s, "ready>")
	})
}

func waitTyped(t *testing.T, dir string) string {
	t.Helper()
	var typed []byte
	pollUntil(t, 15*time.Second, "the prompt typed into the CLI", func() bool {
		var err error
		typed, err = os.ReadFile(filepath.Join(dir, "typed"))
		return err == nil
	})
	return string(typed)
}

// TestSpawnedClaudePromptTypedOnceReady: a Claude Code spawned with a
// prompt does not get it on its command line (it would send it before
// agentgrid's MCP server is connected); the prompt is pasted once its
// SessionStart hook has run and its MCP server has listed agentgrid's
// tools, and not before both.
func TestSpawnedClaudePromptTypedOnceReady(t *testing.T) {
	prog, dir := fakeClaude(t)
	e := newTestEngine(t, nil, []string{"cat"}, claudeKind(prog))
	in, err := e.Spawn(control.SpawnRequest{Kind: "claude", Prompt: "fix the tests"})
	if err != nil {
		t.Fatal(err)
	}
	waitPrompting(t, e, in.ID)
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if strings.Contains(string(args), "fix the tests") || !strings.Contains(string(args), "--mcp-config") {
		t.Fatalf("the CLI's arguments: %q; want the MCP wiring and no prompt", args)
	}

	if err := e.Signal(in.ID, agentstate.Signal{Event: "SessionStart", State: agentstate.Idle, Why: "session started"}, "claude"); err != nil {
		t.Fatal(err)
	}
	if r := resolution(t, e, in.ID); strings.Contains(r, "prompt typed") {
		t.Fatalf("typed on SessionStart alone, before the MCP tools were listed:\n%s", r)
	}
	// Not idle while its task waits to be typed: wait --until idle would
	// return before the agent began.
	if got, _ := e.Agent(in.ID); got.State == agentstate.Idle {
		t.Fatalf("an agent whose prompt is not typed yet reads %s (%s); want it still starting", got.State, got.Why)
	}
	if err := e.MCPReady(in.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := waitTyped(t, dir), "\x1b[200~fix the tests\x1b[201~"; got != want {
		t.Fatalf("typed %q, want the prompt as a bracketed paste %q", got, want)
	}
	if r := resolution(t, e, in.ID); !strings.Contains(r, "prompt typed: claude's SessionStart hook ran and agentgrid's MCP tools were listed") {
		t.Fatalf("explain does not say how the prompt was typed:\n%s", r)
	}
	ex, _ := e.Explain(in.ID)
	if !slices.ContainsFunc(ex.Evidence, func(ev control.Evidence) bool { return ev.Source == "mcp" }) {
		t.Errorf("explain's evidence lacks the MCP server: %+v", ex.Evidence)
	}
}

// TestSpawnedClaudePromptWaitsToSettle: once Claude Code is ready and
// has listed agentgrid's tools, the prompt still waits promptSettle (the
// CLI offers the tools to the model a little after listing them), and is
// typed when it has passed.
func TestSpawnedClaudePromptWaitsToSettle(t *testing.T) {
	prog, dir := fakeClaude(t)
	clock := newFakeClock()
	e := newClockedEngine(t, nil, clock, []string{"cat"}, claudeKind(prog))
	in, err := e.Spawn(control.SpawnRequest{Kind: "claude", Prompt: "settle first"})
	if err != nil {
		t.Fatal(err)
	}
	waitPrompting(t, e, in.ID)
	if err := e.MCPReady(in.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Signal(in.ID, agentstate.Signal{Event: "SessionStart", State: agentstate.Idle, Why: "session started"}, "claude"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(promptSettle - time.Millisecond)
	if r := resolution(t, e, in.ID); strings.Contains(r, "prompt typed") {
		t.Fatalf("typed before %v had passed since the CLI was ready:\n%s", promptSettle, r)
	}
	clock.Advance(time.Millisecond)
	if got := waitTyped(t, dir); got != "\x1b[200~settle first\x1b[201~" {
		t.Fatalf("typed %q", got)
	}
	if r := resolution(t, e, in.ID); !strings.Contains(r, "MCP tools were listed, then 500ms passed") {
		t.Fatalf("explain does not say the prompt waited to settle:\n%s", r)
	}
}

// TestSpawnedClaudePromptTypedAfterDeadline: a Claude Code whose MCP
// server never connects still gets its prompt, promptReadyWait after it
// started, and explain says what was missing.
func TestSpawnedClaudePromptTypedAfterDeadline(t *testing.T) {
	prog, dir := fakeClaude(t)
	clock := newFakeClock()
	e := newClockedEngine(t, nil, clock, []string{"cat"}, claudeKind(prog))
	in, err := e.Spawn(control.SpawnRequest{Kind: "claude", Prompt: "go on"})
	if err != nil {
		t.Fatal(err)
	}
	waitPrompting(t, e, in.ID)
	if err := e.Signal(in.ID, agentstate.Signal{Event: "SessionStart", State: agentstate.Idle, Why: "session started"}, "claude"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(promptReadyWait - time.Second)
	if r := resolution(t, e, in.ID); strings.Contains(r, "prompt typed") {
		t.Fatalf("typed before the deadline:\n%s", r)
	}
	clock.Advance(time.Second)
	if got := waitTyped(t, dir); got != "\x1b[200~go on\x1b[201~" {
		t.Fatalf("typed %q", got)
	}
	r := resolution(t, e, in.ID)
	if !strings.Contains(r, "prompt typed after 30s without agentgrid's MCP tools listed") || strings.Contains(r, "SessionStart hook or") {
		t.Fatalf("explain does not say the prompt went without the MCP tools:\n%s", r)
	}
}

// TestTypedPromptCarriesNoControls: a spawn's prompt that carries terminal
// controls (an Esc, the end of a paste, ctrl+c) is typed as text: one
// paste with none of them, then Enter.
func TestTypedPromptCarriesNoControls(t *testing.T) {
	prog, dir := fakeClaude(t)
	e := newTestEngine(t, nil, []string{"cat"}, claudeKind(prog))
	in, err := e.Spawn(control.SpawnRequest{Kind: "claude", Prompt: "a\x1b[201~b\x03c\x1b[2Jd\te"})
	if err != nil {
		t.Fatal(err)
	}
	waitPrompting(t, e, in.ID)
	if err := e.Signal(in.ID, agentstate.Signal{Event: "SessionStart", State: agentstate.Idle}, "claude"); err != nil {
		t.Fatal(err)
	}
	if err := e.MCPReady(in.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := waitTyped(t, dir), "\x1b[200~a[201~bc[2Jd\te\x1b[201~"; got != want {
		t.Fatalf("typed %q, want %q", got, want)
	}
}

// TestTypedPromptPastedInPieces: a long prompt is pasted in pieces of at
// most pastePiece bytes, never cutting a character, so that Claude Code
// takes it as text rather than folding it into a pasted-content wrapper.
func TestTypedPromptPastedInPieces(t *testing.T) {
	prog, dir := fakeClaude(t)
	e := newTestEngine(t, nil, []string{"cat"}, claudeKind(prog))
	prompt := strings.Repeat("ab", 199) + "é" + strings.Repeat("x", 500) // a character across the first cut
	in, err := e.Spawn(control.SpawnRequest{Kind: "claude", Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	waitPrompting(t, e, in.ID)
	if err := e.Signal(in.ID, agentstate.Signal{Event: "SessionStart", State: agentstate.Idle}, "claude"); err != nil {
		t.Fatal(err)
	}
	if err := e.MCPReady(in.ID); err != nil {
		t.Fatal(err)
	}
	typed := waitTyped(t, dir)
	pieces := strings.Split(strings.TrimSuffix(strings.TrimPrefix(typed, "\x1b[200~"), "\x1b[201~"), "\x1b[201~\x1b[200~")
	if len(pieces) != 3 || strings.Join(pieces, "") != prompt {
		t.Fatalf("typed %d pieces %q; want the prompt in 3", len(pieces), pieces)
	}
	for _, p := range pieces {
		if len(p) > pastePiece || !utf8.ValidString(p) {
			t.Errorf("a piece of %d bytes (valid UTF-8: %v)", len(p), utf8.ValidString(p))
		}
	}
}
