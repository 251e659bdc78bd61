package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// idle measures the CPU of a session with 16 idle shells: over the first
// 10 s after they settled, and over a further 60 s that takes in the minute
// at which their badges change.
func (e *wbEnv) idle() []wbRow {
	short := wbRow{Name: fmt.Sprintf("idle CPU, %d idle panes, %v", wbIdlePanes, wbIdleFor), Unit: "%", Agentgrid: math.NaN(), Tmux: math.NaN(),
		Note: "240x70, tiled; % of one core; agentgrid client+server+watchdog vs tmux server+client"}
	long := wbRow{Name: fmt.Sprintf("idle CPU, same panes, the next %v", wbIdleLong), Unit: "%", Agentgrid: math.NaN(), Tmux: math.NaN(),
		Note: "spans the minute at which the idle badges turn from <1m to 1m"}
	redraw := wbRow{Name: fmt.Sprintf("full redraw of %d panes + status, CPU per frame", wbIdlePanes+1), Unit: "ms", Agentgrid: math.NaN(), Tmux: math.NaN(),
		Note: fmt.Sprintf("%d redraws of the idle session above, every row sent again; agentgrid: prefix r, tmux: refresh-client", wbRedraws)}
	if w, rd, err := e.idleAgentgrid(); err != nil {
		short.Note += "; agentgrid: " + err.Error()
	} else {
		short.Agentgrid, long.Agentgrid = w[0].cpu, w[1].cpu
		short.Note += fmt.Sprintf("; agentgrid wrote %d bytes to the terminal meanwhile", w[0].written)
		long.Note += fmt.Sprintf("; agentgrid wrote %d bytes", w[1].written)
		redraw.Agentgrid = rd.cpuMS
		redraw.Note += fmt.Sprintf("; agentgrid %.0f bytes a frame", rd.bytes)
	}
	if w, rd, err := e.idleTmux(); err != nil {
		short.Note += "; tmux: " + err.Error()
	} else {
		short.Tmux, long.Tmux = w[0].cpu, w[1].cpu
		short.Note += fmt.Sprintf(", tmux %d", w[0].written)
		long.Note += fmt.Sprintf(", tmux %d", w[1].written)
		redraw.Tmux = rd.cpuMS
		redraw.Note += fmt.Sprintf(", tmux %.0f", rd.bytes)
	}
	return []wbRow{short, long, redraw}
}

// wbRedraw is the cost of one full redraw.
type wbRedraw struct {
	cpuMS float64 // CPU time per frame, idle share taken off
	bytes float64 // bytes written to the terminal per frame
}

// wbMeasureRedraws asks for wbRedraws full redraws, wbRedrawGap apart so
// that none is merged with the next, waits until the terminal has been
// quiet for a while, and returns the CPU and bytes per frame. idlePct, the
// session's own idle CPU, is taken off.
func wbMeasureRedraws(term *wbTerminal, idlePct float64, redraw func() error, pids ...int) (wbRedraw, error) {
	if err := term.waitQuiet(300*time.Millisecond, 10*time.Second); err != nil {
		return wbRedraw{}, err
	}
	c0, err := wbProcessesCPU(pids...)
	if err != nil {
		return wbRedraw{}, err
	}
	w0, t0 := term.written.Load(), time.Now()
	for range wbRedraws {
		if err := redraw(); err != nil {
			return wbRedraw{}, err
		}
		time.Sleep(wbRedrawGap)
	}
	if err := term.waitQuiet(300*time.Millisecond, 20*time.Second); err != nil {
		return wbRedraw{}, err
	}
	c1, err := wbProcessesCPU(pids...)
	if err != nil {
		return wbRedraw{}, err
	}
	elapsed := time.Since(t0)
	used := float64(c1-c0) - idlePct/100*float64(elapsed)
	return wbRedraw{
		cpuMS: max(used, 0) / wbRedraws / float64(time.Millisecond),
		bytes: float64(term.written.Load()-w0) / wbRedraws,
	}, nil
}

// wbIdleWindow is one idle measurement: CPU share and bytes drawn.
type wbIdleWindow struct {
	cpu     float64
	written int64
}

// idleWindows measures the idle windows one after the other.
func idleWindows(term *wbTerminal, pids ...int) ([]wbIdleWindow, error) {
	var out []wbIdleWindow
	for _, d := range []time.Duration{wbIdleFor, wbIdleLong} {
		before := term.written.Load()
		cpu, err := wbCPUOver(d, pids...)
		if err != nil {
			return nil, err
		}
		out = append(out, wbIdleWindow{cpu: cpu, written: term.written.Load() - before})
	}
	return out, nil
}

func (e *wbEnv) idleAgentgrid() ([]wbIdleWindow, wbRedraw, error) {
	s, err := e.startAgentgrid("tiled", 240, 70)
	if err != nil {
		return nil, wbRedraw{}, err
	}
	defer s.close()
	for i := range wbIdlePanes {
		ctx, cancel := wbCall()
		_, err := s.client.Spawn(ctx, control.SpawnParams{Title: fmt.Sprintf("idle-%d", i+1), Argv: []string{"sh"}})
		cancel()
		if err != nil {
			return nil, wbRedraw{}, err
		}
	}
	// Settle: every shell printed its prompt and the agents were judged
	// idle, so the window measures the steady state.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = wbWaitUntil(ctx, 200*time.Millisecond, func() bool {
		c, cancel := wbCall()
		defer cancel()
		as, err := s.client.List(c)
		if err != nil {
			return false
		}
		idle := 0
		for _, a := range as {
			if a.State == agentstate.Idle {
				idle++
			}
		}
		return idle >= wbIdlePanes
	})
	time.Sleep(time.Second)
	e.logf("agentgrid idle: measuring %v, then %v", wbIdleFor, wbIdleLong)
	w, err := idleWindows(s.term, s.pids()...)
	if err != nil {
		return nil, wbRedraw{}, err
	}
	e.logf("agentgrid: %d full redraws", wbRedraws)
	rd, err := wbMeasureRedraws(s.term, w[0].cpu, func() error { return s.term.typeKeys("\x02r") }, s.pids()...)
	return w, rd, err
}

func (e *wbEnv) idleTmux() ([]wbIdleWindow, wbRedraw, error) {
	s, err := e.startTmux(240, 70)
	if err != nil {
		return nil, wbRedraw{}, err
	}
	defer s.close()
	for range wbIdlePanes {
		if _, err := s.ctl.run("split-window -d sh"); err != nil {
			return nil, wbRedraw{}, err
		}
		// Re-tile after each split, or the last splits find no room.
		if _, err := s.ctl.run("select-layout tiled"); err != nil {
			return nil, wbRedraw{}, err
		}
	}
	pids, err := s.pids()
	if err != nil {
		return nil, wbRedraw{}, err
	}
	client, err := s.ttyClient()
	if err != nil {
		return nil, wbRedraw{}, err
	}
	time.Sleep(2 * time.Second)
	e.logf("tmux idle: measuring %v, then %v", wbIdleFor, wbIdleLong)
	w, err := idleWindows(s.term, pids...)
	if err != nil {
		return nil, wbRedraw{}, err
	}
	e.logf("tmux: %d full redraws", wbRedraws)
	rd, err := wbMeasureRedraws(s.term, w[0].cpu, func() error {
		_, err := s.ctl.run("refresh-client -t " + wbTmuxQuote(client))
		return err
	}, pids...)
	return w, rd, err
}

// wbSpawnProbe is the command whose first output is waited for. The marker is
// built by printf so it never appears in the command line itself.
func wbSpawnProbe(i int) (cmd, marker string) {
	n := 1000 + i
	return fmt.Sprintf("printf '%%s-%%s\\n' ready %d; exec sleep 1000", n), fmt.Sprintf("ready-%d", n)
}

// spawn measures request -> first output, in the session's own capture and
// on the user's screen. Both sides are up for the whole measurement and
// take turns, spawn i on one then spawn i on the other, alternating who
// goes first, so a change in the machine's load falls on both alike.
func (e *wbEnv) spawn() []wbRow {
	capRow := wbRow{Name: "spawn -> first output in capture (median)", Unit: "ms", Agentgrid: math.NaN(), Tmux: math.NaN(),
		Note: fmt.Sprintf("%d spawns a side, interleaved, alternating who goes first; socket agent.spawn vs split-window", wbSpawns)}
	scrRow := wbRow{Name: "spawn -> first output on screen (median)", Unit: "ms", Agentgrid: math.NaN(), Tmux: math.NaN(),
		Note: "seen in the outer terminal: the time its reader had parsed the output that showed the marker, checked after each read"}
	ag, err := e.startAgentgrid("main-vertical", 240, 70)
	if err != nil {
		capRow.Note += "; agentgrid: " + err.Error()
	} else {
		defer ag.close()
	}
	tm, err := e.startTmux(240, 70)
	if err != nil {
		capRow.Note += "; tmux: " + err.Error()
	} else {
		defer tm.close()
	}
	var agCap, agScr, tmCap, tmScr []float64
	var agErr, tmErr error
	// The CPU each side's processes (server and client) used over its
	// spawns, from the request to the pane's end.
	var agPids, tmPids []int
	var agCPU, tmCPU time.Duration
	if ag != nil {
		agPids = ag.pids()
	}
	if tm != nil {
		if tmPids, err = tm.pids(); err != nil {
			tmErr = err
		}
	}
	for i := range wbSpawns {
		sides := []func(){
			func() {
				if ag == nil || agErr != nil {
					return
				}
				_, c0 := wbRunWait(agPids...)
				c, s, err := e.spawnAgentgrid(ag, i)
				_, c1 := wbRunWait(agPids...)
				agCap, agScr, agErr, agCPU = append(agCap, c), append(agScr, s), err, agCPU+c1-c0
			},
			func() {
				if tm == nil || tmErr != nil {
					return
				}
				_, c0 := wbRunWait(tmPids...)
				c, s, err := e.spawnTmux(tm, i)
				_, c1 := wbRunWait(tmPids...)
				tmCap, tmScr, tmErr, tmCPU = append(tmCap, c), append(tmScr, s), err, tmCPU+c1-c0
			},
		}
		if i%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, run := range sides {
			run()
		}
	}
	if agErr != nil {
		capRow.Note += "; agentgrid: " + agErr.Error()
	} else if ag != nil {
		capRow.Agentgrid, scrRow.Agentgrid = wbPercentile(agCap, 50), wbPercentile(agScr, 50)
		scrRow.Note += fmt.Sprintf("; CPU a spawn (server and client, request to pane closed): agentgrid %.2f ms", wbMS(agCPU)/float64(len(agCap)))
		e.logf("agentgrid spawn ms, capture %v, screen %v", wbRound(agCap), wbRound(agScr))
	}
	if tmErr != nil {
		capRow.Note += "; tmux: " + tmErr.Error()
	} else if tm != nil {
		capRow.Tmux, scrRow.Tmux = wbPercentile(tmCap, 50), wbPercentile(tmScr, 50)
		scrRow.Note += fmt.Sprintf(", tmux %.2f ms", wbMS(tmCPU)/float64(len(tmCap)))
		e.logf("tmux spawn ms, capture %v, screen %v", wbRound(tmCap), wbRound(tmScr))
	}
	return []wbRow{capRow, scrRow}
}

// wbRound rounds each sample to 0.01 ms for the log.
func wbRound(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*100) / 100
	}
	return out
}

// spawnAgentgrid spawns probe i in s and returns how long its marker took
// to show in capture and on screen, in ms; then it closes the agent and
// waits until it has finished.
func (e *wbEnv) spawnAgentgrid(s *wbAgentgrid, i int) (inCapture, onScreen float64, err error) {
	cmd, marker := wbSpawnProbe(i)
	ctx, cancel := wbCall()
	defer cancel()
	seen := s.term.watchScreen(func(sc string) bool { return strings.Contains(sc, marker) })
	t0 := time.Now()
	a, err := s.client.Spawn(ctx, control.SpawnParams{Title: "probe", Argv: []string{"sh", "-c", cmd}})
	if err != nil {
		return 0, 0, err
	}
	err = wbWaitUntil(ctx, 500*time.Microsecond, func() bool {
		text, err := s.client.Capture(ctx, a.ID, false, 0)
		return err == nil && strings.Contains(text, marker)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("agent %s never printed its marker: %w", a.ID, err)
	}
	inCapture = wbMS(time.Since(t0))
	at, err := s.term.waitWatch(seen, 10*time.Second)
	if err != nil {
		return 0, 0, err
	}
	onScreen = wbMS(at.Sub(t0))
	_ = s.client.CloseAgent(ctx, a.ID)
	_ = wbWaitUntil(ctx, 5*time.Millisecond, func() bool {
		info, err := s.client.Agent(ctx, a.ID)
		return err != nil || info.State.Finished()
	})
	return inCapture, onScreen, nil
}

// spawnTmux is spawnAgentgrid's twin: split-window, capture-pane, kill-pane.
func (e *wbEnv) spawnTmux(s *wbTmux, i int) (inCapture, onScreen float64, err error) {
	cmd, marker := wbSpawnProbe(i)
	seen := s.term.watchScreen(func(sc string) bool { return strings.Contains(sc, marker) })
	t0 := time.Now()
	out, err := s.ctl.run("split-window -d -P -F '#{pane_id}' " + wbTmuxQuote(cmd))
	if err != nil || len(out) == 0 {
		return 0, 0, fmt.Errorf("split-window: %v", err)
	}
	pane := strings.TrimSpace(out[0])
	ctx, cancel := wbCall()
	err = wbWaitUntil(ctx, 500*time.Microsecond, func() bool {
		lines, err := s.ctl.run("capture-pane -p -t " + pane)
		return err == nil && strings.Contains(strings.Join(lines, "\n"), marker)
	})
	cancel()
	if err != nil {
		return 0, 0, fmt.Errorf("pane %s never printed its marker: %w", pane, err)
	}
	inCapture = wbMS(time.Since(t0))
	at, err := s.term.waitWatch(seen, 10*time.Second)
	if err != nil {
		return 0, 0, err
	}
	onScreen = wbMS(at.Sub(t0))
	if _, err := s.ctl.run("kill-pane -t " + pane); err != nil {
		return 0, 0, err
	}
	return inCapture, onScreen, nil
}

// wbFloodCmd prints wbFloodSize bytes, then a marker, then stays so the pane
// (and its last screen) stays up.
func wbFloodCmd() string {
	return fmt.Sprintf("yes '%s' | head -c %d; printf '%%s-%%s\\n' FLOOD DONE; exec sleep 1000", wbFloodLine, wbFloodSize)
}

// wbFlood is one side's flood figures.
type wbFlood struct {
	drained time.Duration
	echo    []float64 // keystroke -> echo latencies, ms
	missed  int       // keystrokes not echoed within the probe timeout
	// wait and cpu are the run-queue wait and the CPU of the side's
	// processes during the flood, termWait the bench's own (the terminal
	// that shows the echoes), each summed over threads.
	wait, cpu, termWait time.Duration
}

// flood starts 8 panes printing 20 MB each and, until they are drained,
// types into the focused shell and times each echo. It does so runs times
// per side, the sides taking turns and taking turns at going first, so a
// change in the machine's load falls on both alike. The echoes of every run
// are pooled: one run gives a few hundred keys, whose p99 is the third
// slowest key; the drain is the median run's.
func (e *wbEnv) flood(runs int) []wbRow {
	note := fmt.Sprintf("%d panes x %d MB, 240x70 main-vertical", wbFloodN, wbFloodSize/1_000_000)
	drain := wbRow{Name: fmt.Sprintf("flood %dx%d MB: all output drained", wbFloodN, wbFloodSize/1_000_000), Unit: "s", Agentgrid: math.NaN(), Tmux: math.NaN(), Note: note}
	p50 := wbRow{Name: "flood: keystroke -> echo p50", Unit: "ms", Agentgrid: math.NaN(), Tmux: math.NaN(), Note: "focused shell, echo seen on the outer screen"}
	p99 := wbRow{Name: "flood: keystroke -> echo p99", Unit: "ms", Agentgrid: math.NaN(), Tmux: math.NaN()}
	var ag, tm wbFloods
	for i := range max(runs, 1) {
		sides := []func(){
			func() { ag.add(e.floodAgentgrid()) },
			func() { tm.add(e.floodTmux()) },
		}
		if i%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, run := range sides {
			run()
		}
	}
	fill := func(side string, f wbFloods, set func(*wbRow, float64)) {
		for _, err := range f.errs {
			drain.Note += "; " + side + ": " + err
		}
		if len(f.drains) == 0 {
			return
		}
		set(&drain, median(f.drains))
		set(&p50, wbPercentile(f.echo, 50))
		set(&p99, wbPercentile(f.echo, 99))
		p99.Note += fmt.Sprintf("%s %d keys in %d runs", side, len(f.echo), len(f.drains))
		if f.missed > 0 {
			p99.Note += fmt.Sprintf(" (%d not echoed in 5s)", f.missed)
		}
		p99.Note += fmt.Sprintf(", waited for a CPU %.1f s (used %.1f s), its terminal waited %.1f s; ",
			f.wait.Seconds(), f.cpu.Seconds(), f.termWait.Seconds())
	}
	fill("agentgrid", ag, func(w *wbRow, v float64) { w.Agentgrid = v })
	fill("tmux", tm, func(w *wbRow, v float64) { w.Tmux = v })
	p99.Note = strings.TrimSuffix(p99.Note, "; ")
	return []wbRow{drain, p50, p99}
}

// wbFloods pools one side's flood runs.
type wbFloods struct {
	drains              []float64 // seconds, one per run that drained
	echo                []float64 // every run's keystroke -> echo latencies, ms
	missed              int
	wait, cpu, termWait time.Duration
	errs                []string
}

func (f *wbFloods) add(r wbFlood, err error) {
	if err != nil {
		f.errs = append(f.errs, err.Error())
		return
	}
	f.drains = append(f.drains, r.drained.Seconds())
	f.echo = append(f.echo, r.echo...)
	f.missed += r.missed
	f.wait += r.wait
	f.cpu += r.cpu
	f.termWait += r.termWait
}

// wbProbeEchoes types into the focused shell until stop is set, timing how
// long each character takes to show on the prompt line.
func wbProbeEchoes(t *wbTerminal, stop *atomic.Bool, res *wbFlood) {
	const timeout = 5 * time.Second
	typed := ""
	for i := 0; !stop.Load(); i++ {
		if len(typed) >= 40 {
			// ctrl+u empties the line (not timed).
			_ = t.typeKeys("\x15")
			typed = ""
			if err := t.waitScreen(timeout, func(sc string) bool { return wbPromptLine(sc) == "" }); err != nil {
				res.missed++
			}
		}
		ch := string(rune('a' + i%26))
		want := typed + ch
		t0 := time.Now()
		if err := t.typeKeys(ch); err != nil {
			return
		}
		if err := t.waitScreen(timeout, func(sc string) bool { return wbPromptLine(sc) == want }); err != nil {
			res.missed++
			res.echo = append(res.echo, wbMS(timeout))
		} else {
			res.echo = append(res.echo, wbMS(time.Since(t0)))
		}
		typed = want
		time.Sleep(10 * time.Millisecond)
	}
}

// wbPromptLine returns what is typed after the last shell prompt on screen.
func wbPromptLine(screen string) string {
	// Text() trims trailing blanks, so an empty line ends in "bench$".
	p := strings.TrimSpace(wbPrompt)
	i := strings.LastIndex(screen, p)
	if i < 0 {
		return "\x00"
	}
	rest := screen[i+len(p):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	// Cut at the pane's border (agentgrid) or divider (tmux).
	if j := strings.IndexAny(rest, "│┃|"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

func (e *wbEnv) floodAgentgrid() (wbFlood, error) {
	s, err := e.startAgentgrid("main-vertical", 240, 70)
	if err != nil {
		return wbFlood{}, err
	}
	defer s.close()
	t0 := time.Now()
	var ids []string
	for i := range wbFloodN {
		ctx, cancel := wbCall()
		a, err := s.client.Spawn(ctx, control.SpawnParams{Title: fmt.Sprintf("flood-%d", i+1), Argv: []string{"sh", "-c", wbFloodCmd()}})
		cancel()
		if err != nil {
			return wbFlood{}, err
		}
		ids = append(ids, a.ID)
	}
	return e.drainFlood("agentgrid", s.term, s.pids(), t0, ids, func(id string) (string, error) {
		c, cancel := wbCall()
		defer cancel()
		return s.client.Capture(c, id, false, 0)
	})
}

func (e *wbEnv) floodTmux() (wbFlood, error) {
	s, err := e.startTmux(240, 70)
	if err != nil {
		return wbFlood{}, err
	}
	defer s.close()
	pids, err := s.pids()
	if err != nil {
		return wbFlood{}, err
	}
	t0 := time.Now()
	var panes []string
	for range wbFloodN {
		out, err := s.ctl.run("split-window -d -P -F '#{pane_id}' " + wbTmuxQuote(wbFloodCmd()))
		if err != nil || len(out) == 0 {
			return wbFlood{}, fmt.Errorf("split-window: %v", err)
		}
		panes = append(panes, strings.TrimSpace(out[0]))
		if _, err := s.ctl.run("select-layout main-vertical"); err != nil {
			return wbFlood{}, err
		}
	}
	return e.drainFlood("tmux", s.term, pids, t0, panes, func(p string) (string, error) {
		lines, err := s.ctl.run("capture-pane -p -t " + p)
		return strings.Join(lines, "\n"), err
	})
}

// drainFlood probes keystroke echoes on term while it waits for every
// flooding pane's screen (read with capture) to show FLOOD-DONE, and
// records how long that took since t0, and how long pids (the side's
// processes) and the bench itself waited for a CPU meanwhile. Both sides of
// the comparison go through it, so they are measured the same way.
func (e *wbEnv) drainFlood(who string, term *wbTerminal, pids []int, t0 time.Time, panes []string, capture func(pane string) (string, error)) (wbFlood, error) {
	var res wbFlood
	wait0, cpu0 := wbRunWait(pids...)
	term0, _ := wbRunWait(os.Getpid())
	var stop atomic.Bool
	probed := make(chan struct{})
	go func() { wbProbeEchoes(term, &stop, &res); close(probed) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	left := map[string]bool{}
	for _, p := range panes {
		left[p] = true
	}
	err := wbWaitUntil(ctx, 50*time.Millisecond, func() bool {
		for p := range left {
			if text, err := capture(p); err == nil && strings.Contains(text, "FLOOD-DONE") {
				delete(left, p)
			}
		}
		return len(left) == 0
	})
	res.drained = time.Since(t0)
	stop.Store(true)
	<-probed
	wait1, cpu1 := wbRunWait(pids...)
	term1, _ := wbRunWait(os.Getpid())
	res.wait, res.cpu, res.termWait = wait1-wait0, cpu1-cpu0, term1-term0
	if err != nil {
		return res, fmt.Errorf("%d panes not drained after 5m", len(left))
	}
	e.logf("%s flood drained in %v", who, res.drained)
	return res, nil
}
