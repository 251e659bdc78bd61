package orchestrator

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/panestest"
)

func TestFakeStartFailureIsShownAndReleasesNothing(t *testing.T) {
	sp := &panestest.Spawner{Fail: func(s panes.StartSpec) error {
		if s.Argv[0] == "broken" {
			return errors.New("exec format error in broken")
		}
		return nil
	}}
	e := newTestEngine(t, sp, nil, func(c *config.Config) { c.Limits.Default = 1 })
	e.Resize(48, 10)
	bad := spawn(t, e, "broken")
	good := spawn(t, e, "fine")
	got := waitFinished(t, e, bad.ID)
	if got.State != agentstate.Failed || got.Why != "exec format error in broken" || !got.Visible || got.ExitCode != nil {
		t.Fatalf("failed start = %+v", got)
	}
	s, err := e.Capture(bad.ID, false, 0)
	if err != nil || !strings.Contains(strings.ReplaceAll(s, "\n", ""), "exec format error") {
		t.Fatalf("capture = %q, %v", s, err)
	}
	// The failed start held no permit: the next agent runs under limit 1.
	waitAgent(t, e, good.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if n := len(sp.Procs()); n != 1 {
		t.Fatalf("%d processes started, want 1", n)
	}
}

func TestFakeImmediateExitAndLimitHandOff(t *testing.T) {
	sp := &panestest.Spawner{}
	e := newTestEngine(t, sp, nil, func(c *config.Config) { c.Limits.Default = 1 })
	e.Resize(48, 10)
	a1, a2, a3 := spawn(t, e, "x"), spawn(t, e, "y"), spawn(t, e, "z")
	pollUntil(t, 5*time.Second, "the first process", func() bool { return len(sp.Procs()) == 1 })
	sp.Procs()[0].Output("hello\r\n")
	sp.Procs()[0].Exit(0)
	if got := waitFinished(t, e, a1.ID); got.State != agentstate.Done {
		t.Fatalf("a1 = %+v", got)
	}
	waitAgent(t, e, a2.ID, "running after the hand-off", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if a, _ := e.Agent(a3.ID); a.State != agentstate.Pending {
		t.Fatalf("a3 = %+v", a)
	}
	procs := sp.Procs()
	if len(procs) != 2 || procs[1].Spec.Argv[0] != "y" {
		t.Fatalf("second start = %+v", procs)
	}
	// The PTY was started at its slot's content size.
	var box layout.Rect
	for _, p := range e.Snapshot().Panes {
		if p.Agent.ID == a2.ID {
			box = p.Box.Inset(1)
		}
	}
	if box.Empty() || procs[1].Spec.Cols != box.W || procs[1].Spec.Rows != box.H {
		t.Fatalf("spec size = %dx%d, slot content %+v", procs[1].Spec.Cols, procs[1].Spec.Rows, box)
	}
	procs[1].Exit(2)
	if got := waitFinished(t, e, a2.ID); got.State != agentstate.Failed || *got.ExitCode != 2 {
		t.Fatalf("a2 = %+v", got)
	}
	waitAgent(t, e, a3.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
}

func TestFakeCloseSendsTheGraceSequence(t *testing.T) {
	sp := &panestest.Spawner{Behave: func(p *panestest.Proc) { p.Ignore(syscall.SIGHUP) }}
	e := newTestEngine(t, sp, nil, nil)
	e.Resize(48, 10)
	in := spawn(t, e, "x")
	pollUntil(t, 5*time.Second, "the process", func() bool { return len(sp.Procs()) == 1 })
	if err := e.Close(in.ID); err != nil {
		t.Fatal(err)
	}
	got := waitFinished(t, e, in.ID)
	if got.State != agentstate.Killed || *got.ExitCode != 128+int(syscall.SIGTERM) {
		t.Fatalf("closed = %+v", got)
	}
	sigs := sp.Procs()[0].Signals()
	if len(sigs) < 2 || sigs[0] != syscall.SIGHUP || !strings.Contains(strings.Join(sigNames(sigs), ","), "terminated") {
		t.Fatalf("signals = %v", sigs)
	}
}

func sigNames(s []syscall.Signal) []string {
	var out []string
	for _, x := range s {
		out = append(out, x.String())
	}
	return out
}

func TestFakeNeverExitingProcessCannotHangShutdown(t *testing.T) {
	sp := &panestest.Spawner{Behave: func(p *panestest.Proc) {
		p.Ignore(syscall.SIGHUP, syscall.SIGTERM, syscall.SIGKILL)
	}}
	cfg := config.Default()
	cfg.Agents.KillGrace = config.Duration{Duration: 50 * time.Millisecond}
	e, err := New(cfg, Options{Session: "t", Spawner: sp, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), []string{"main"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := e.Spawn(control.SpawnRequest{Argv: []string{"stuck"}}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = e.Shutdown(ctx)
	if err == nil {
		t.Fatal("shutdown reported success with processes still alive")
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("shutdown took %s despite its deadline", el)
	}
	if err2 := e.Shutdown(context.Background()); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("second shutdown = %v, want the first's result", err2)
	}
	for _, p := range sp.Procs() {
		p.Exit(0) // let the fake processes go so the test ends cleanly
	}
}

func TestFakeStalledInputNeverBlocks(t *testing.T) {
	sp := &panestest.Spawner{Behave: func(p *panestest.Proc) { p.StallInput() }}
	e := newTestEngine(t, sp, nil, nil)
	e.Resize(48, 10)
	in := spawn(t, e, "x")
	waitAgent(t, e, in.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	chunk := make([]byte, 256<<10)
	start := time.Now()
	var err error
	for range 8 {
		if err = e.Send(in.ID, chunk); err != nil {
			break
		}
	}
	if !errors.Is(err, panes.ErrInputFull) {
		t.Fatalf("err = %v, want the input-full error", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("Send blocked for %s", el)
	}
	if _, err := e.Spawn(control.SpawnRequest{Argv: []string{"y"}}); err != nil {
		t.Fatalf("the engine is stuck: %v", err)
	}
	for _, p := range sp.Procs() {
		p.Exit(0)
	}
}

func TestFakeNotificationMeansWaiting(t *testing.T) {
	sp := &panestest.Spawner{}
	e := newTestEngine(t, sp, nil, nil)
	e.Resize(48, 10)
	in := spawn(t, e, "x")
	pollUntil(t, 5*time.Second, "the process", func() bool { return len(sp.Procs()) == 1 })
	sp.Procs()[0].Output("\x1b]9;Approve the edit?\x07")
	a := waitAgent(t, e, in.ID, "waiting", func(a control.AgentInfo) bool { return a.State == agentstate.Waiting })
	if a.Source != sourceTerminal || !strings.Contains(a.Why, "Approve the edit?") {
		t.Fatalf("info = %+v", a)
	}
	// A title from the child names the pane when no title was asked for.
	sp.Procs()[0].Output("\x1b]2;my agent\x07")
	waitAgent(t, e, in.ID, "titled", func(a control.AgentInfo) bool { return a.Title == "my agent" })
}

// TestFakeFocusOutputOnlyForFocusedPane: output of the focused pane pokes
// FocusOutput (the UI draws it at once), output of other panes does not; a
// new agent's first output pokes AwaitedOutput.
func TestFakeFocusOutputOnlyForFocusedPane(t *testing.T) {
	sp := &panestest.Spawner{}
	e := newTestEngine(t, sp, nil, nil)
	e.Resize(120, 30)
	a1, a2 := spawn(t, e, "x"), spawn(t, e, "y")
	for _, id := range []string{a1.ID, a2.ID} {
		waitAgent(t, e, id, "running on screen", func(a control.AgentInfo) bool { return a.State == agentstate.Running && a.Visible })
	}
	procs := sp.Procs()
	e.Focus(a1.ID)
	drain := func() {
		select {
		case <-e.FocusOutput():
		default:
		}
	}
	// Output returns once the pane read it, so after the second chunk the
	// first one's output callback has run.
	drain()
	// A new agent's first output pokes AwaitedOutput wherever the focus is,
	// and FocusOutput only for the focused pane.
	procs[1].Output("first")
	select {
	case <-e.AwaitedOutput():
	case <-time.After(5 * time.Second):
		t.Fatal("the first output of a new agent did not poke AwaitedOutput")
	}
	procs[1].Output("other")
	procs[1].Output("pane")
	select {
	case <-e.FocusOutput():
		t.Fatal("output of an unfocused pane poked FocusOutput")
	default:
	}
	procs[0].Output("echo")
	select {
	case <-e.FocusOutput():
	case <-time.After(5 * time.Second):
		t.Fatal("output of the focused pane did not poke FocusOutput")
	}
	// Focus moves: now the other pane's output is the urgent one.
	e.Focus(a2.ID)
	drain()
	procs[0].Output("now")
	procs[0].Output("unfocused")
	select {
	case <-e.FocusOutput():
		t.Fatal("output of the previously focused pane poked FocusOutput")
	default:
	}
	procs[1].Output("typed")
	select {
	case <-e.FocusOutput():
	case <-time.After(5 * time.Second):
		t.Fatal("output of the newly focused pane did not poke FocusOutput")
	}
}

// TestSendEnterIsAKeyOfItsOwn: `agentgrid send ID TEXT --enter` and MCP
// send_to_agent put the Enter in a write of its own; in one write with the
// text, Codex 0.171 takes both for a pasted line and does not submit it.
func TestSendEnterIsAKeyOfItsOwn(t *testing.T) {
	sp := &panestest.Spawner{}
	e := newTestEngine(t, sp, nil, nil)
	e.Resize(48, 10)
	a := spawn(t, e, "x")
	pollUntil(t, 5*time.Second, "the process", func() bool { return len(sp.Procs()) == 1 })
	if err := e.Send(a.ID, []byte("run the tests\r")); err != nil {
		t.Fatal(err)
	}
	if err := e.Send(a.ID, []byte("\x03")); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 5*time.Second, "three writes", func() bool { return len(sp.Procs()[0].Input()) == len("run the tests\r\x03") })
	got := sp.Procs()[0].Writes()
	want := []string{"run the tests", "\r", "\x03"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("writes %q, want %q", got, want)
	}
}

// TestFakeAwaitedOutputIsTheEchoOfAKeystroke: after a new agent's first
// output, only the first output after the user typed into a pane (its
// echo) pokes AwaitedOutput; other output, and text sent by a script, do not.
func TestFakeAwaitedOutputIsTheEchoOfAKeystroke(t *testing.T) {
	sp := &panestest.Spawner{}
	e := newTestEngine(t, sp, nil, nil)
	e.Resize(120, 30)
	a1 := spawn(t, e, "x")
	waitAgent(t, e, a1.ID, "running on screen", func(a control.AgentInfo) bool { return a.State == agentstate.Running && a.Visible })
	proc := sp.Procs()[0]
	poked := func() bool {
		select {
		case <-e.AwaitedOutput():
			return true
		default:
			return false
		}
	}
	awaited := func(what string) {
		t.Helper()
		select {
		case <-e.AwaitedOutput():
		case <-time.After(5 * time.Second):
			t.Fatalf("%s did not poke AwaitedOutput", what)
		}
	}
	// Output returns once the pane read it, so its callback has run.
	proc.Output("first")
	awaited("the first output")
	proc.Output("more")
	if poked() {
		t.Fatal("output after the first, with no keystroke, poked AwaitedOutput")
	}
	if err := e.Send(a1.ID, []byte("scripted")); err != nil {
		t.Fatal(err)
	}
	proc.Output("reply to a script")
	if poked() {
		t.Fatal("the reply to text sent by a script poked AwaitedOutput")
	}
	if err := e.Input(a1.ID, []byte("k")); err != nil {
		t.Fatal(err)
	}
	proc.Output("k")
	awaited("the echo of a keystroke")
	proc.Output("after the echo")
	if poked() {
		t.Fatal("output after the echo poked AwaitedOutput again")
	}
}
