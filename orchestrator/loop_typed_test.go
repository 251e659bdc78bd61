package orchestrator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// TestLoopContinuationPastedInPieces: a continuation typed into an idle
// agent's pane is pasted as a typed spawn prompt is, in bracketed pastes of
// at most pastePiece bytes (never cutting a character), then Enter, so
// that Claude Code takes a long one as text rather than folding it into a
// pasted-content wrapper. The program records the raw bytes it gets.
func TestLoopContinuationPastedInPieces(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "cli")
	script := "#!/bin/sh\nstty raw -echo\nprintf '\\033[?2004hready>'\nexec cat > '" + dir + "/typed'\n"
	if err := os.WriteFile(prog, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, nil, nil, nil)
	id := spawn(t, e, prog).ID
	pollUntil(t, 15*time.Second, "the program's prompt", func() bool {
		s, err := e.Capture(id, false, 0)
		return err == nil && strings.Contains(s, "ready>")
	})
	task := strings.Repeat("port the parser; ", 20) + "é" + strings.Repeat("then the tests. ", 40)
	if _, err := e.Decide(id, "codex", agentstate.Signal{Event: "UserPromptSubmit", State: agentstate.Running}, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: task}); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, id, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	spec := control.LoopSpec{Promise: "DONE", Max: 3}
	if _, err := e.Loop(id, control.LoopStart, spec); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.Decide(id, "codex", stopSig, stopAsk("Not yet.", false)); d.Action != agentstate.ActionNone {
		t.Fatalf("codex's Stop was answered with %+v; its continuation is typed", d)
	}
	var typed string
	pollUntil(t, 15*time.Second, "the continuation typed and entered", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "typed"))
		typed = string(b)
		return strings.HasSuffix(typed, "\r")
	})
	body, ok := strings.CutSuffix(strings.TrimSuffix(typed, "\r"), "\x1b[201~")
	body, ok2 := strings.CutPrefix(body, "\x1b[200~")
	if !ok || !ok2 {
		t.Fatalf("typed %q: want bracketed pastes, then Enter", typed)
	}
	pieces := strings.Split(body, "\x1b[201~\x1b[200~")
	spec.Task = task
	// A paste carries a newline as the terminal's Enter key, CR.
	if want := strings.ReplaceAll(loopPrompt(spec, 2), "\n", "\r"); strings.Join(pieces, "") != want {
		t.Fatalf("pasted %q, want the continuation %q", strings.Join(pieces, ""), want)
	}
	if len(pieces) < 3 {
		t.Errorf("a continuation of %d bytes pasted in %d pieces, want pieces of at most %d", len(strings.Join(pieces, "")), len(pieces), pastePiece)
	}
	for _, p := range pieces {
		if len(p) > pastePiece || !utf8.ValidString(p) {
			t.Errorf("a piece of %d bytes (valid UTF-8: %v)", len(p), utf8.ValidString(p))
		}
	}
}
