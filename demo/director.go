package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/charmbracelet/x/ansi"
)

// statusKey is the status line entry the demo orchestrator keeps up to date.
const statusKey = "demo"

// DirectorOptions configures the scripted demo orchestrator.
type DirectorOptions struct {
	Seed   uint64
	Agents int
	// Speed divides the simulated agents' and the narration's pauses.
	Speed float64
	// Exe is the agentgrid binary that runs the simulated agents.
	Exe string
	Out io.Writer
	// In is the keyboard of the main view; read after the demo for its prompt.
	In io.Reader
	// Width is the main view's width in cells, for wrapping the narration;
	// WidthNow, when set, is asked before each paragraph instead, because
	// the main view narrows once agents appear beside it.
	Width    int
	WidthNow func() int
	// Poll is how often the orchestrator looks at the agents (default 400ms).
	Poll  time.Duration
	Sleep Sleeper
}

// director narrates and drives one demo run.
type director struct {
	o     DirectorOptions
	sess  Session
	rng   *rand.Rand
	ids   []string
	plans map[string]task
	last  map[string]Agent
	shown map[string]bool // asking agents already pointed out to the user
	// status is the last text of the demo's status entry, so an unchanged
	// one is not sent again on every look.
	status string
	// crowded counts consecutive looks with no agent on screen.
	crowded int
}

// RunDirector runs the demo orchestrator: it explains the workbench, starts
// the simulated agents through sess, reports on them as they finish, prints
// their results and then keeps a small prompt open until ctx ends.
func RunDirector(ctx context.Context, sess Session, o DirectorOptions) error {
	if o.Agents <= 0 {
		o.Agents = 10
	}
	if o.Speed <= 0 {
		o.Speed = 1
	}
	if o.Width <= 0 {
		o.Width = 80
	}
	if o.Poll <= 0 {
		o.Poll = 400 * time.Millisecond
	}
	if o.Sleep == nil {
		o.Sleep = RealSleep
	}
	d := &director{
		o: o, sess: sess,
		rng:   rand.New(rand.NewPCG(o.Seed, 0xa9e17)),
		plans: map[string]task{}, last: map[string]Agent{}, shown: map[string]bool{},
	}
	if err := d.intro(ctx); err != nil {
		return err
	}
	if err := d.spawnAll(ctx); err != nil {
		return err
	}
	if err := d.watch(ctx); err != nil {
		return err
	}
	d.results()
	return d.prompt(ctx)
}

// pause waits a narration beat, scaled by the demo speed.
func (d *director) pause(ctx context.Context, dur time.Duration) error {
	return d.o.Sleep(ctx, time.Duration(float64(dur)/d.o.Speed))
}

// printf writes narration.
func (d *director) printf(format string, args ...any) {
	fmt.Fprintf(d.o.Out, format, args...)
}

// width is the column count to wrap narration at.
func (d *director) width() int {
	w := d.o.Width
	if d.o.WidthNow != nil {
		if n := d.o.WidthNow(); n > 0 {
			w = n
		}
	}
	if len(d.ids) == 0 {
		// Before the first agent the main view has the whole width; it
		// narrows (to half, by default) as soon as the grid appears.
		w /= 2
	}
	return min(max(w-2, 30), 76)
}

// para prints a wrapped paragraph with an indent on every line.
func (d *director) para(indent, text string) {
	w := d.width() - ansi.StringWidth(indent)
	for _, l := range strings.Split(ansi.Wordwrap(text, w, ""), "\n") {
		d.printf("%s%s\n", indent, l)
	}
}

// intro tells a newcomer what they are looking at.
func (d *director) intro(ctx context.Context) error {
	// Name the main pane the way any program would: with an OSC 2 title.
	d.printf("\x1b]2;demo orchestrator\x07")
	d.printf("%s\n\n", paint(csi+"1;38;5;231;48;5;62m", " agentgrid demo "))
	paras := []string{
		"This main view runs an " + paint(sgrBold, "orchestrator") + ": here a small scripted program; in real use an AI coding CLI or your shell.",
		"It starts background agents through agentgrid's control socket ($AGENTGRID_SOCKET), and each one appears live in the grid beside this view, with its title, state and run time on the pane border.",
		"The agents are simulated but real processes in real terminals. More are started than fit on screen: the rest wait in a queue (\"queued\" in the status line below) and move in as panes free up.",
	}
	for _, p := range paras {
		d.para("", p)
		d.printf("\n")
		if err := d.pause(ctx, 1200*time.Millisecond); err != nil {
			return err
		}
	}
	d.printf("%s\n", paint(fgGray, "keys (press ctrl+b first):"))
	for _, k := range keyHints {
		d.printf("  %s %s\n", paint(fgCyan, fmt.Sprintf("%-7s", k[0])), paint(fgGray, k[1]))
	}
	d.printf("\n")
	return d.pause(ctx, 1500*time.Millisecond)
}

// keyHints are the workbench keys the demo teaches, after the prefix.
var keyHints = [][2]string{
	{"1..9", "focus agent pane N (0 = this view)"},
	{"arrows", "move focus"},
	{"z", "zoom the focused pane"},
	{"w", "list every agent, queued ones too"},
	{"?", "help"},
	{"q", "quit"},
}

// simArgv is the command line of one simulated agent.
func (d *director) simArgv(t task, seed uint64) []string {
	return []string{d.o.Exe, "__sim-agent", "--script", t.name,
		"--seed", strconv.FormatUint(seed, 10), "--speed", strconv.FormatFloat(d.o.Speed, 'g', -1, 64)}
}

// spawnAll starts the agents one by one so the grid visibly fills up.
func (d *director) spawnAll(ctx context.Context) error {
	n := d.o.Agents
	d.printf("%s\n", paint(sgrBold, fmt.Sprintf("Starting %d agents", n)))
	for i := range n {
		t := tasks[i%len(tasks)]
		title := t.title
		if round := i / len(tasks); round > 0 {
			title = fmt.Sprintf("%s #%d", t.title, round+1)
		}
		a, err := d.sess.Spawn(title, d.simArgv(t, d.o.Seed+uint64(i)))
		if err != nil {
			d.printf("  %s %s\n", paint(fgRed, "✗"), paint(fgRed, "spawn "+title+": "+err.Error()))
			continue
		}
		d.ids = append(d.ids, a.ID)
		d.plans[a.ID] = t
		d.last[a.ID] = a
		where := ""
		if a.QueuePos > 0 {
			where = paint(fgYellow, fmt.Sprintf(" queued #%d", a.QueuePos))
		}
		d.printf("  %s %s %s%s\n", paint(fgGreen, "→"), paint(fgCyan, fmt.Sprintf("%-3s", a.ID)), title, where)
		_ = d.sess.SetStatus(statusKey, fmt.Sprintf("spawned %d/%d", i+1, n))
		if err := d.pause(ctx, 350*time.Millisecond+time.Duration(d.rng.IntN(500))*time.Millisecond); err != nil {
			return err
		}
	}
	if len(d.ids) == 0 {
		return fmt.Errorf("the demo could not start any agent; see the errors above")
	}
	d.printf("\n")
	d.para(paint(fgGray, "  "), paint(fgGray, "Watch the grid: finished panes stay up a while with their exit status, then make room for queued agents."))
	d.printf("\n")
	return nil
}

// watch reports agents' changes until every one of them has finished.
func (d *director) watch(ctx context.Context) error {
	for {
		agents, err := d.sess.List()
		if err != nil {
			return fmt.Errorf("list the demo's agents: %w", err)
		}
		byID := map[string]Agent{}
		for _, a := range agents {
			byID[a.ID] = a
		}
		finished := 0
		for _, id := range d.ids {
			a, ok := byID[id]
			if !ok {
				// The session no longer knows it (closed and forgotten).
				a = d.last[id]
				a.State = agentstate.Killed
			}
			d.report(d.last[id], a)
			d.last[id] = a
			if a.Finished() {
				finished++
			}
		}
		d.updateStatus()
		if finished == len(d.ids) {
			return nil
		}
		d.checkRoom(byID)
		if err := d.o.Sleep(ctx, d.o.Poll); err != nil {
			return err
		}
	}
}

// checkRoom tells the user, once, when no agent has had a pane for a while:
// the terminal is too small for the layout, and the demo would seem stuck.
func (d *director) checkRoom(byID map[string]Agent) {
	for _, a := range byID {
		if a.Visible || a.Finished() {
			d.crowded = 0
			return
		}
	}
	d.crowded++
	if d.crowded != roomPatience {
		return
	}
	d.printf("\n  %s %s\n", paint(fgYellow+sgrBold, "!"), paint(fgYellow, "No agent fits beside this view at this terminal size."))
	d.para("    ", "Make the window larger, or press ctrl+b then space to try another layout; the queued agents start as soon as a pane is free.")
	d.printf("\n")
}

// roomPatience is how many looks without any agent on screen pass before
// checkRoom speaks (about three seconds at the default poll).
const roomPatience = 8

// report narrates one agent's change between two looks.
func (d *director) report(prev, cur Agent) {
	id := paint(fgCyan, fmt.Sprintf("%-3s", cur.ID))
	if prev.QueuePos > 0 && cur.QueuePos == 0 && cur.Visible && !cur.Finished() {
		d.printf("  %s %s %s %s\n", paint(fgBlue, "⇡"), id, cur.Title, paint(fgGray, fmt.Sprintf("left the queue → pane %d", cur.Number)))
	}
	if cur.State == agentstate.Waiting && d.plans[cur.ID].outcome == asks && !d.shown[cur.ID] {
		d.shown[cur.ID] = true
		where := "find it with ctrl+b w"
		switch {
		case cur.Number > 9:
			where = fmt.Sprintf("press ctrl+b ' and type %d to focus it", cur.Number)
		case cur.Number > 0:
			where = fmt.Sprintf("press ctrl+b %d to focus it", cur.Number)
		}
		d.printf("\n  %s %s %s %s\n", paint(fgYellow+sgrBold, "?"), id, cur.Title, paint(fgYellow, "is asking you something."))
		d.para("    ", fmt.Sprintf("%s, type %s and press enter (then ctrl+b 0 comes back here).", where, paint(sgrBold, "y")))
		d.printf("\n")
	}
	if prev.Finished() || !cur.Finished() {
		return
	}
	switch cur.State {
	case agentstate.Done:
		d.printf("  %s %s %s %s\n", paint(fgGreen, "✓"), id, cur.Title, paint(fgGray, "done"+runTime(cur)))
	case agentstate.Failed:
		code := ""
		if cur.ExitCode != nil {
			code = fmt.Sprintf(" (exit %d)", *cur.ExitCode)
		}
		d.printf("  %s %s %s %s\n", paint(fgRed, "✗"), id, cur.Title, paint(fgRed, "failed"+code))
	default:
		d.printf("  %s %s %s %s\n", paint(fgGray, "■"), id, cur.Title, paint(fgGray, string(cur.State)))
	}
}

// runTime formats " in 12s" from an agent's start and end times.
func runTime(a Agent) string {
	if a.Started == nil || a.Ended == nil {
		return ""
	}
	return " in " + a.Ended.Sub(*a.Started).Round(time.Second).String()
}

// updateStatus keeps the demo's status line entry current.
func (d *director) updateStatus() {
	// The queue length is already in the status line's counts.
	finished := 0
	for _, id := range d.ids {
		if d.last[id].Finished() {
			finished++
		}
	}
	text := fmt.Sprintf("finished %d/%d", finished, len(d.ids))
	if text != d.status {
		d.status = text
		_ = d.sess.SetStatus(statusKey, text)
	}
}

// results prints each agent's outcome and the last line it printed.
func (d *director) results() {
	d.printf("\n%s\n", paint(sgrBold, "Results"))
	ok := 0
	for _, id := range d.ids {
		a := d.last[id]
		mark := paint(fgGreen, "✓")
		switch a.State {
		case agentstate.Done:
			ok++
		case agentstate.Failed:
			mark = paint(fgRed, "✗")
		default:
			mark = paint(fgGray, "■")
		}
		d.printf("  %s %s %s\n", mark, paint(fgCyan, fmt.Sprintf("%-3s", id)), a.Title)
		text, err := d.sess.Capture(id)
		line := lastLine(text)
		if err != nil {
			line = "(no screen: " + err.Error() + ")"
		}
		if line != "" {
			d.printf("      %s\n", paint(fgGray, ansi.Truncate(line, d.width()-6, "…")))
		}
	}
	d.printf("\n%s\n", fmt.Sprintf("%d of %d agents succeeded.", ok, len(d.ids)))
	_ = d.sess.SetStatus(statusKey, fmt.Sprintf("demo finished · %d/%d ok", ok, len(d.ids)))
}

// lastLine returns the last non-blank line of a captured screen.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// prompt keeps the main view alive and useful after the demo.
func (d *director) prompt(ctx context.Context) error {
	d.printf("%s\n", paint(fgYellow+sgrBold, "demo finished — press ctrl+b q to quit"))
	d.para("", paint(fgGray, "or type list, again or help below."))
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(d.o.In)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		d.printf("%s ", paint(fgViolet+sgrBold, "demo>"))
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case line, ok = <-lines:
		}
		if !ok {
			// No keyboard (stdin closed): stay up until the session ends.
			<-ctx.Done()
			return nil
		}
		d.command(strings.TrimSpace(line))
	}
}

// command runs one line typed at the demo prompt.
func (d *director) command(cmd string) {
	switch cmd {
	case "":
	case "list", "ls":
		agents, err := d.sess.List()
		if err != nil {
			d.printf("%s\n", paint(fgRed, "list: "+err.Error()))
			return
		}
		for _, a := range agents {
			d.printf("  %s %-8s %s\n", paint(fgCyan, fmt.Sprintf("%-4s", a.ID)), a.State, a.Title)
		}
	case "again":
		t := tasks[d.rng.IntN(len(tasks))]
		for t.outcome == asks {
			t = tasks[d.rng.IntN(len(tasks))]
		}
		a, err := d.sess.Spawn(t.title+" (again)", d.simArgv(t, d.rng.Uint64()%1000))
		if err != nil {
			d.printf("%s\n", paint(fgRed, "spawn: "+err.Error()))
			return
		}
		d.printf("  %s %s %s\n", paint(fgGreen, "→"), paint(fgCyan, a.ID), a.Title)
	case "help", "?":
		d.printf("  list   show every agent and its state\n  again  start one more simulated agent\n  ctrl+b q quits agentgrid\n")
	case "quit", "exit", "q":
		d.printf("%s\n", paint(fgYellow, "press ctrl+b then q to quit agentgrid"))
	default:
		d.printf("%s\n", paint(fgGray, "unknown command "+strconv.Quote(cmd)+"; try help"))
	}
}
