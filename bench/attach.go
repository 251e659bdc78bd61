package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// The attach section measures the session server and its clients (issue
// 10) beside a tmux server and `tmux attach` clients in the same run:
// attaching to a first frame, the bytes a client gets while 8 panes
// flood, and the server's CPU with 3 clients attached to an idle session.
// Parts (-only): first, flood, cpu.

const (
	attachCols, attachRows = 120, 40
	attachFloodPanes       = 8
	attachFloodFor         = 3 * time.Second
	// The flood runs at the workbench's size, where agentgrid's tiled
	// layout shows all 8 panes, as tmux does.
	attachFloodCols, attachFloodRows = 240, 70
	attachIdlePanes                  = 4
	attachIdleFor                    = 10 * time.Second
)

func init() {
	register(benchSection{
		Name:  "attach",
		About: "session server and attached clients at 120x40 beside tmux attach in the same run (parts: first, flood, cpu)",
		Run: func(o benchOptions) ([]benchRow, error) {
			if _, err := exec.LookPath("tmux"); err != nil {
				return nil, errNoTmux
			}
			e, err := newWBEnv(os.Stderr)
			if err != nil {
				return nil, err
			}
			defer os.RemoveAll(e.dir)
			var rows []wbRow
			if o.want("first") {
				rows = append(rows, e.attachFirst(max(o.Runs, 1)))
			}
			if o.want("flood") {
				rows = append(rows, e.attachFlood())
			}
			if o.want("cpu") {
				rows = append(rows, e.attachCPU())
			}
			return wbBenchRows("attach", rows), nil
		},
	})
}

// attachArgv is the client command of each side.
func (e *wbEnv) agentgridAttach(s *wbAgentgrid) []string { return []string{e.bin, "attach", s.name} }
func tmuxAttach(s *wbTmux) []string {
	return []string{"tmux", "-L", s.server, "-f", "/dev/null", "attach", "-t", "b"}
}

// attachOnce starts a client in a terminal of its own and waits for its
// first frame: the shell prompt on screen (inside a border for agentgrid).
func (e *wbEnv) attachOnce(argv []string, border bool) (*wbTerminal, time.Duration, error) {
	return e.attachSized(argv, border, attachCols, attachRows)
}

func (e *wbEnv) attachSized(argv []string, border bool, cols, rows int) (*wbTerminal, time.Duration, error) {
	t0 := time.Now()
	t, err := wbStartTerminal(argv, e.env, cols, rows)
	if err != nil {
		return nil, 0, err
	}
	err = t.waitScreen(10*time.Second, func(sc string) bool {
		return strings.Contains(sc, strings.TrimSpace(wbPrompt)) && (!border || strings.Contains(sc, "┌"))
	})
	d := time.Since(t0)
	if err != nil {
		t.close()
		return nil, 0, err
	}
	return t, d, nil
}

// attachFirst times a client's start to its first frame, runs times on
// each side, taking turns (an agentgrid client, then a tmux client), so a
// change in the machine's load falls on both sides alike.
func (e *wbEnv) attachFirst(runs int) wbRow {
	row := wbRow{Name: "attach -> first frame (median)", Unit: "ms", Agentgrid: math.NaN(), Tmux: math.NaN(), Note: fmt.Sprintf("%d runs a side, taking turns, a new client in a %dx%d terminal until the shell prompt shows", runs, attachCols, attachRows)}
	type side struct {
		name   string
		argv   []string
		border bool
		ds     []float64
	}
	var sides []*side
	if s, err := e.startAgentgrid("main-vertical", attachCols, attachRows); err != nil {
		row.Note += "; agentgrid: " + err.Error()
	} else {
		defer s.close()
		sides = append(sides, &side{name: "agentgrid", argv: e.agentgridAttach(s), border: true})
	}
	if s, err := e.startTmux(attachCols, attachRows); err != nil {
		row.Note += "; tmux: " + err.Error()
	} else {
		defer s.close()
		sides = append(sides, &side{name: "tmux", argv: tmuxAttach(s)})
	}
	failed := map[*side]bool{}
	for range runs {
		for _, sd := range sides {
			if failed[sd] {
				continue
			}
			t, d, err := e.attachOnce(sd.argv, sd.border)
			if err != nil {
				row.Note += "; " + sd.name + ": " + err.Error()
				failed[sd] = true
				continue
			}
			sd.ds = append(sd.ds, wbMS(d))
			t.close()
		}
	}
	for _, sd := range sides {
		if len(sd.ds) == 0 {
			continue
		}
		if sd.name == "tmux" {
			row.Tmux = median(sd.ds)
		} else {
			row.Agentgrid = median(sd.ds)
		}
	}
	return row
}

// attachFloodCmd prints numbered lines without end (the pane is closed
// after the window): every line differs, so no frame repeats the last.
func attachFloodCmd() string {
	return "exec seq -f 'flood %.0f 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ' 1 1000000000"
}

// attachFlood counts the bytes a second attached client receives while 8
// panes print without pause, over the same window on both sides.
func (e *wbEnv) attachFlood() wbRow {
	row := wbRow{Name: fmt.Sprintf("%d panes flood: bytes to an attached client", attachFloodPanes), Unit: "MB/s", Agentgrid: math.NaN(), Tmux: math.NaN(),
		Note: fmt.Sprintf("a second client at %dx%d, tiled, every pane on screen, counted over %v; what the screen needs, fewer bytes is better", attachFloodCols, attachFloodRows, attachFloodFor)}
	measure := func(t *wbTerminal) float64 {
		before := t.written.Load()
		start := time.Now()
		time.Sleep(attachFloodFor) // the measurement window
		return float64(t.written.Load()-before) / time.Since(start).Seconds() / 1e6
	}
	if s, err := e.startAgentgrid("tiled", attachFloodCols, attachFloodRows); err != nil {
		row.Note += "; agentgrid: " + err.Error()
	} else {
		func() {
			defer s.close()
			t, _, err := e.attachSized(e.agentgridAttach(s), true, attachFloodCols, attachFloodRows)
			if err != nil {
				row.Note += "; agentgrid: " + err.Error()
				return
			}
			defer t.close()
			for i := range attachFloodPanes {
				ctx, cancel := wbCall()
				_, err := s.client.Spawn(ctx, control.SpawnParams{Title: fmt.Sprintf("flood-%d", i+1), Argv: []string{"sh", "-c", attachFloodCmd()}})
				cancel()
				if err != nil {
					row.Note += "; agentgrid: " + err.Error()
					return
				}
			}
			if err := t.waitScreen(10*time.Second, func(sc string) bool { return strings.Contains(sc, " 0123456789 abc") }); err != nil {
				row.Note += "; agentgrid: " + err.Error()
				return
			}
			row.Agentgrid = measure(t)
		}()
	}
	if s, err := e.startTmux(attachFloodCols, attachFloodRows); err != nil {
		row.Note += "; tmux: " + err.Error()
	} else {
		func() {
			defer s.close()
			t, _, err := e.attachSized(tmuxAttach(s), false, attachFloodCols, attachFloodRows)
			if err != nil {
				row.Note += "; tmux: " + err.Error()
				return
			}
			defer t.close()
			for range attachFloodPanes {
				if _, err := s.ctl.run("split-window -d " + wbTmuxQuote(attachFloodCmd())); err != nil {
					row.Note += "; tmux: " + err.Error()
					return
				}
				if _, err := s.ctl.run("select-layout tiled"); err != nil {
					row.Note += "; tmux: " + err.Error()
					return
				}
			}
			if err := t.waitScreen(10*time.Second, func(sc string) bool { return strings.Contains(sc, " 0123456789 abc") }); err != nil {
				row.Note += "; tmux: " + err.Error()
				return
			}
			row.Tmux = measure(t)
		}()
	}
	return row
}

// attachCPU measures the server's CPU with 3 clients attached to a
// session of idle shells.
func (e *wbEnv) attachCPU() wbRow {
	row := wbRow{Name: "idle, 3 clients attached: server CPU", Unit: "%", Agentgrid: math.NaN(), Tmux: math.NaN(),
		Note: fmt.Sprintf("%d idle shells beside the main one, %v, percent of one core, the server process only", attachIdlePanes, attachIdleFor)}
	if s, err := e.startAgentgrid("tiled", attachCols, attachRows); err != nil {
		row.Note += "; agentgrid: " + err.Error()
	} else {
		func() {
			defer s.close()
			for i := range attachIdlePanes {
				ctx, cancel := wbCall()
				_, err := s.client.Spawn(ctx, control.SpawnParams{Title: fmt.Sprintf("idle-%d", i+1), Argv: []string{"sh"}})
				cancel()
				if err != nil {
					row.Note += "; agentgrid: " + err.Error()
					return
				}
			}
			for range 2 {
				t, _, err := e.attachOnce(e.agentgridAttach(s), true)
				if err != nil {
					row.Note += "; agentgrid: " + err.Error()
					return
				}
				defer t.close()
			}
			_ = s.term.waitQuiet(time.Second, 20*time.Second)
			cpu, err := wbCPUOver(attachIdleFor, s.pid())
			if err != nil {
				row.Note += "; agentgrid: " + err.Error()
				return
			}
			row.Agentgrid = cpu
		}()
	}
	if s, err := e.startTmux(attachCols, attachRows); err != nil {
		row.Note += "; tmux: " + err.Error()
	} else {
		func() {
			defer s.close()
			for range attachIdlePanes {
				if _, err := s.ctl.run("split-window -d sh"); err != nil {
					row.Note += "; tmux: " + err.Error()
					return
				}
				_, _ = s.ctl.run("select-layout tiled")
			}
			for range 2 {
				t, _, err := e.attachOnce(tmuxAttach(s), false)
				if err != nil {
					row.Note += "; tmux: " + err.Error()
					return
				}
				defer t.close()
			}
			pids, err := s.pids()
			if err != nil {
				row.Note += "; tmux: " + err.Error()
				return
			}
			_ = s.term.waitQuiet(time.Second, 20*time.Second)
			cpu, err := wbCPUOver(attachIdleFor, pids[0])
			if err != nil {
				row.Note += "; tmux: " + err.Error()
				return
			}
			row.Tmux = cpu
		}()
	}
	return row
}
