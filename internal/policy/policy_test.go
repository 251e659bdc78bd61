package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"secrets/**", "secrets/key.pem", true},
		{"secrets/**", "secrets/a/b/c", true},
		{"secrets/**", "secrets", true},
		{"secrets/**", "src/secrets/key", false},
		{"**/secrets/**", "src/secrets/key", true},
		{".env", ".env", true},
		{".env", "sub/.env", false},
		{"**/.env", "sub/.env", true},
		{"*.go", "main.go", true},
		{"*.go", "cmd/main.go", false},
		{"cmd/*/main.go", "cmd/x/main.go", true},
		{"docs/", "docs/a.md", false},
		{"[", "[", false}, // a malformed glob matches nothing
	}
	for _, c := range cases {
		if got := Match(c.glob, c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

var protect = Rule{
	Name: "protect-secrets", On: agentstate.PointPreTool, Tools: []string{"Edit", "Write", "Bash"},
	Paths: []string{"secrets/**", ".env"}, Action: agentstate.ActionBlock, Message: "secrets/ and .env are off limits; ask the user",
}

func TestBlockPolicyMatchesToolAndPath(t *testing.T) {
	e := New([]Rule{protect})
	a := Agent{ID: "a1", Kind: "claude", Cwd: "/work/repo"}
	now := time.Unix(1000, 0)
	cases := []struct {
		name string
		ask  agentstate.Ask
		want agentstate.Action
	}{
		{"absolute path inside secrets", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{"/work/repo/secrets/k.pem"}, Cwd: "/work/repo"}, agentstate.ActionBlock},
		{"the payload's cwd wins over the agent's", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{"/other/.env"}, Cwd: "/other"}, agentstate.ActionBlock},
		{"agent's cwd when the payload has none", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{"/work/repo/.env"}}, agentstate.ActionBlock},
		{"relative path", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{"secrets/x"}}, agentstate.ActionBlock},
		{"other file", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{"/work/repo/main.go"}, Cwd: "/work/repo"}, agentstate.ActionNone},
		{"OpenCode's spelling of the tool", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "write", Paths: []string{"/work/repo/.env"}, Cwd: "/work/repo"}, agentstate.ActionBlock},
		{"other tool", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Read", Paths: []string{"/work/repo/.env"}, Cwd: "/work/repo"}, agentstate.ActionNone},
		{"other point", agentstate.Ask{Point: agentstate.PointPostTool, Tool: "Edit", Paths: []string{"/work/repo/.env"}, Cwd: "/work/repo"}, agentstate.ActionNone},
		{"outside the cwd", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{"/work/secrets/x"}, Cwd: "/work/repo"}, agentstate.ActionNone},
		{"escaping relative path", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{"../repo2/.env"}}, agentstate.ActionNone},
		{"no paths", agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Bash"}, agentstate.ActionNone},
	}
	for _, c := range cases {
		d := e.Decide(a, c.ask, now)
		if d.Action != c.want {
			t.Errorf("%s: action %q, want %q", c.name, d.Action, c.want)
		}
		if c.want == agentstate.ActionBlock && (d.Message != protect.Message || d.Policy != "protect-secrets") {
			t.Errorf("%s: decision %+v, want the rule's message and name", c.name, d)
		}
	}
	recs := e.Records("a1")
	if len(recs) != 5 || recs[0].Policy != "protect-secrets" || recs[0].Tool != "Edit" || !recs[0].Time.Equal(now) {
		t.Errorf("records = %+v, want the 5 blocks with their policy", recs)
	}
}

func TestKindsAndAgentsFilter(t *testing.T) {
	r := protect
	r.Kinds, r.Agents = []string{"claude"}, []string{"main", "a2"}
	e := New([]Rule{r})
	ask := agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{".env"}}
	for _, c := range []struct {
		a    Agent
		want agentstate.Action
	}{
		{Agent{ID: "main", Kind: "claude"}, agentstate.ActionBlock},
		{Agent{ID: "a2", Kind: "claude"}, agentstate.ActionBlock},
		{Agent{ID: "a1", Kind: "claude"}, agentstate.ActionNone},
		{Agent{ID: "main", Kind: "codex"}, agentstate.ActionNone},
	} {
		if d := e.Decide(c.a, ask, time.Time{}); d.Action != c.want {
			t.Errorf("%+v: %q, want %q", c.a, d.Action, c.want)
		}
	}
}

func TestBlocksWinAndHintsJoin(t *testing.T) {
	hint1 := Rule{Name: "h1", On: agentstate.PointPrompt, Action: agentstate.ActionHint, Message: "first"}
	hint2 := Rule{Name: "h2", On: agentstate.PointPrompt, Action: agentstate.ActionHint, Message: "second"}
	e := New([]Rule{hint1, hint2})
	d := e.Decide(Agent{ID: "a1"}, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "go"}, time.Time{})
	if d.Action != agentstate.ActionHint || d.Message != "first\nsecond" || d.Policy != "h1,h2" {
		t.Errorf("two hints: %+v", d)
	}
	block := Rule{Name: "b", On: agentstate.PointPrompt, Action: agentstate.ActionBlock, Message: "no"}
	e = New([]Rule{hint1, block})
	d = e.Decide(Agent{ID: "a1"}, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: "go"}, time.Time{})
	if d.Action != agentstate.ActionBlock || d.Message != "no" || d.Policy != "b" {
		t.Errorf("hint and block: %+v, want the block alone", d)
	}
}

// The nudge's matrix: only the main view's agent, only a real user prompt
// (not empty, with a session, not typed by agentgrid), one reminder for
// any number of file operations, kept over a refused prompt, cleared by
// Forget (the agent's session ended or it closed).
func TestDelegationNudge(t *testing.T) {
	nudge := Rule{Name: "delegation_nudge", Use: UseDelegationNudge}
	main := Agent{ID: "main", Kind: "claude"}
	fileOp := func(e *Engine, a Agent, tool string) {
		t.Helper()
		if d := e.Decide(a, agentstate.Ask{Point: agentstate.PointPostTool, Tool: tool, SessionID: "s"}, time.Time{}); d.Action != agentstate.ActionNone {
			t.Fatalf("a %s result got %+v; the nudge waits for the next prompt", tool, d)
		}
	}
	prompt := func(e *Engine, a Agent, text, session string) agentstate.Decision {
		return e.Decide(a, agentstate.Ask{Point: agentstate.PointPrompt, Prompt: text, SessionID: session}, time.Time{})
	}
	isNudge := func(d agentstate.Decision) bool {
		return d.Action == agentstate.ActionHint && strings.HasSuffix(d.Message, NudgeText)
	}

	t.Run("three file operations give one reminder", func(t *testing.T) {
		e := New([]Rule{nudge})
		fileOp(e, main, "Read")
		fileOp(e, main, "Edit")
		fileOp(e, main, "Write")
		if d := prompt(e, main, "next step", "s"); !isNudge(d) || d.Message != NudgeText {
			t.Fatalf("first prompt after file work: %+v, want the reminder once", d)
		}
		if d := prompt(e, main, "and then", "s"); d.Action != agentstate.ActionNone {
			t.Errorf("second prompt: %+v, want nothing", d)
		}
	})
	t.Run("OpenCode's file tools mark too", func(t *testing.T) {
		e := New([]Rule{nudge})
		fileOp(e, main, "edit")
		if d := prompt(e, main, "next step", "ses_1"); !isNudge(d) {
			t.Fatalf("first prompt after OpenCode's edit: %+v, want the reminder", d)
		}
	})
	t.Run("other tools do not mark", func(t *testing.T) {
		e := New([]Rule{nudge})
		fileOp(e, main, "Bash")
		fileOp(e, main, "Grep")
		if d := prompt(e, main, "next", "s"); d.Action != agentstate.ActionNone {
			t.Errorf("%+v", d)
		}
	})
	t.Run("wrong agent", func(t *testing.T) {
		e := New([]Rule{nudge})
		a1 := Agent{ID: "a1", Kind: "claude"}
		fileOp(e, a1, "Edit")
		if d := prompt(e, a1, "next", "s"); d.Action != agentstate.ActionNone {
			t.Errorf("a background agent got %+v", d)
		}
		if d := prompt(e, main, "next", "s"); d.Action != agentstate.ActionNone {
			t.Errorf("main got %+v for a1's file work", d)
		}
	})
	t.Run("empty prompt, no session id, injected prompts and a background task's wake-up keep the mark", func(t *testing.T) {
		e := New([]Rule{nudge})
		fileOp(e, main, "MultiEdit")
		for _, c := range []struct{ text, session string }{{"  \n", "s"}, {"next", ""}, {InjectedPrefix + " a3 finished", "s"},
			{"<task-notification>\n<summary>agentgrid: the agents Claude started have finished</summary>\n</task-notification>", "s"}} {
			if d := prompt(e, main, c.text, c.session); d.Action != agentstate.ActionNone {
				t.Errorf("prompt %q session %q: %+v, want nothing", c.text, c.session, d)
			}
		}
		if d := prompt(e, main, "now me", "s"); !isNudge(d) {
			t.Errorf("the user's prompt after those: %+v, want the reminder", d)
		}
	})
	t.Run("a rejected turn keeps the mark and the reminder comes last", func(t *testing.T) {
		block := Rule{Name: "no-deploy", On: agentstate.PointPrompt, Action: agentstate.ActionBlock, Message: "no"}
		hint := Rule{Name: "tip", On: agentstate.PointPrompt, Agents: []string{"main"}, Action: agentstate.ActionHint, Message: "tip"}
		e := New([]Rule{nudge, block})
		fileOp(e, main, "Edit")
		if d := prompt(e, main, "deploy", "s"); d.Action != agentstate.ActionBlock {
			t.Fatalf("%+v, want the block", d)
		}
		e2 := New([]Rule{nudge, hint})
		e2.marks = e.marks // the same agent, now with a hint policy instead
		if d := prompt(e2, main, "ok then", "s"); d.Action != agentstate.ActionHint || d.Message != "tip\n"+NudgeText || d.Policy != "delegation_nudge,tip" {
			t.Errorf("after the refused prompt: %+v, want the tip then the reminder", d)
		}
	})
	t.Run("close clears it", func(t *testing.T) {
		e := New([]Rule{nudge})
		fileOp(e, main, "Edit")
		e.Forget("main")
		if d := prompt(e, main, "next", "s"); d.Action != agentstate.ActionNone {
			t.Errorf("%+v after Forget", d)
		}
	})
	t.Run("a message replaces the text", func(t *testing.T) {
		r := nudge
		r.Message = "delegate!"
		e := New([]Rule{r})
		fileOp(e, main, "Read")
		if d := prompt(e, main, "x", "s"); d.Message != "delegate!" {
			t.Errorf("%+v", d)
		}
	})
}

// A Stop that ends a turn a block kept going is not blocked again, or the
// agent would never stop.
func TestStopBlockedOnlyOnce(t *testing.T) {
	e := New([]Rule{{Name: "tests-first", On: agentstate.PointStop, Action: agentstate.ActionBlock, Message: "run the tests"}})
	a := Agent{ID: "a1"}
	if d := e.Decide(a, agentstate.Ask{Point: agentstate.PointStop, Said: "done"}, time.Time{}); d.Action != agentstate.ActionBlock {
		t.Fatalf("first stop: %+v", d)
	}
	if d := e.Decide(a, agentstate.Ask{Point: agentstate.PointStop, Said: "done", Repeat: true}, time.Time{}); d.Action != agentstate.ActionNone {
		t.Errorf("the repeated stop: %+v, want none", d)
	}
}
