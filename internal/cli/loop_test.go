package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// TestCLILoopFlags: spawn --loop and agentgrid loop put the flags into the
// request; a loop without a bound, or loop flags without --loop, never
// reach the session.
func TestCLILoopFlags(t *testing.T) {
	b, sock := startCLIServer(t)
	r := runCLI(t, "--socket", sock, "spawn", "--kind", "claude", "--prompt", "make CI green", "--loop", "--promise", "DONE", "--max", "7", "--cooldown", "2s")
	r.want(t, 0)
	got := b.spawned[0].Loop
	if got == nil || *got != (control.LoopSpec{Promise: "DONE", Max: 7, CooldownMS: 2000}) {
		t.Errorf("spawn --loop sent %+v", got)
	}
	r = runCLI(t, "--socket", sock, "spawn", "--loop", "--promise", "OK", "--forever", "--for", "90m", "--task", "t", "--", "cat")
	r.want(t, 0)
	if got := b.spawned[1].Loop; got == nil || *got != (control.LoopSpec{Promise: "OK", Forever: true, ForMS: int64(90 * time.Minute / time.Millisecond), Task: "t"}) {
		t.Errorf("spawn --loop --forever sent %+v", got)
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"spawn", "--promise", "DONE", "--max", "3", "--", "cat"}, "add --loop"},
		{[]string{"spawn", "--loop", "--promise", "DONE", "--", "cat"}, "--max N is required"},
		{[]string{"spawn", "--loop", "--promise", "DONE", "--max", "3", "--", "cat"}, "needs its task"},
		{[]string{"spawn", "--loop", "--max", "3", "--task", "t", "--", "cat"}, "needs a promise"},
		{[]string{"spawn", "--loop", "--promise", "DONE", "--forever", "--task", "t", "--", "cat"}, "--forever needs --for"},
		{[]string{"loop", "a1", "--promise", "DONE"}, "--max N is required"},
		{[]string{"loop", "a1", "--promise", "DONE", "--max", "2", "--forever", "--for", "1h"}, "not both"},
		{[]string{"loop"}, "agentgrid loop needs an argument"},
		{[]string{"loop", "a1", "--promise", "DONE", "--max", "2", "--stall", "2"}, "add --while-todos"},
		{[]string{"spawn", "--while-todos", "--max", "2", "--", "cat"}, "add --loop"},
	} {
		r := runCLI(t, append([]string{"--socket", sock}, tt.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("agentgrid %s: exit %d stderr %q, want exit 2 mentioning %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.msg)
		}
	}
	r = runCLI(t, "--socket", sock, "spawn", "--loop", "--while-todos", "--stall", "2", "--max", "9", "--task", "t", "--", "cat")
	r.want(t, 0)
	if got := b.spawned[2].Loop; got == nil || *got != (control.LoopSpec{WhileTodos: true, Stall: 2, Max: 9, Task: "t"}) {
		t.Errorf("spawn --loop --while-todos sent %+v", got)
	}
	if len(b.spawned) != 3 {
		t.Errorf("refused spawns reached the session: %d", len(b.spawned))
	}
	// A session without loops says so in one sentence.
	r = runCLI(t, "--socket", sock, "loop", "a1", "--promise", "DONE", "--max", "2")
	if r.code != 1 || !strings.Contains(r.stderr, "this session runs no loops") {
		t.Errorf("loop against a session without loops: exit %d, %q", r.code, r.stderr)
	}
}
