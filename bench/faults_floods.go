package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

func init() {
	registerFault(faultPart{Name: "floods", Run: runFloodsFault})
}

// ffFloodFor is how long each flood lasts in all (the engine test runs the
// same floods for 3 s each), in ffCycles floods of equal length: each
// cycle starts the flooding pane, types beside it and closes it, so that
// the close is a median of ffCycles samples, not one.
const (
	ffFloodFor = 30 * time.Second
	ffCycles   = 5
)

// ffFloods are shell loops printing terminal titles, desktop notifications,
// bells, or all three, as fast as sh can.
var ffFloods = []struct{ name, body string }{
	{"titles", `printf '\033]2;title %d\007' $i`},
	{"notices", `printf '\033]9;notice %d\007' $i`},
	{"bells", `printf '\007'`},
	{"all three", `printf '\033]2;title %d\007\033]777;notify;n;body %d\007\007' $i $i`},
}

func ffScript(body string) string {
	return fmt.Sprintf("i=0; while :; do %s; i=$((i+1)); done", body)
}

// ffResult is one side's figures for one flood.
type ffResult struct {
	peakRSS float64 // MB, sampled every 100 ms during the flood
	echo    wbFlood
	closes  []float64 // ms for the close command to return, one per cycle
}

// runFloodsFault runs each flood in one pane for ffFloodFor (in ffCycles
// cycles) while typing in the main view (agentgrid) or the first pane
// (tmux), and reports the peak RSS of agentgrid's process beside the tmux
// server's, the echo latency of what is typed (the probe of the workbench
// flood), and how long closing the flooding pane takes (`agentgrid close`
// vs `tmux kill-pane`, the median of the cycles' closes).
func runFloodsFault(o benchOptions) ([]benchRow, error) {
	e, err := newWBEnv(os.Stderr)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(e.dir)
	var rows []benchRow
	var firstErr error
	for _, fl := range ffFloods {
		ag, agErr := e.floodSignalsAgentgrid(ffScript(fl.body))
		tm, tmErr := e.floodSignalsTmux(ffScript(fl.body))
		for _, x := range []struct {
			who string
			err error
		}{{"agentgrid", agErr}, {"tmux", tmErr}} {
			if x.err != nil {
				fmt.Fprintf(os.Stderr, "faults: floods: %s, %s: %v\n", fl.name, x.who, x.err)
				if firstErr == nil && x.who == "agentgrid" {
					firstErr = x.err
				}
			}
		}
		cell := func(err error, v float64, unit string) string {
			if err != nil || math.IsNaN(v) {
				return ""
			}
			return wbCell(v, unit)
		}
		echo := func(err error, r ffResult) string {
			if err != nil || len(r.echo.echo) == 0 {
				return ""
			}
			s := fmt.Sprintf("%s / %s", wbCell(wbPercentile(r.echo.echo, 50), "ms"), wbCell(wbPercentile(r.echo.echo, 99), "ms"))
			if r.echo.missed > 0 {
				s += fmt.Sprintf(" (%d of %d not echoed in 5 s)", r.echo.missed, len(r.echo.echo))
			}
			return s
		}
		name := fmt.Sprintf("%s flood %v", fl.name, ffFloodFor)
		rss := benchRow{Metric: name + ": peak RSS", Agentgrid: cell(agErr, ag.peakRSS, "MB"), Tmux: cell(tmErr, tm.peakRSS, "MB")}
		echoRow := benchRow{Metric: name + ": main-view echo p50 / p99", Agentgrid: echo(agErr, ag), Tmux: echo(tmErr, tm)}
		closes := func(err error, r ffResult) string {
			if err != nil || len(r.closes) == 0 {
				return ""
			}
			return fmt.Sprintf("%s (max %s)", wbCell(median(r.closes), "ms"), wbCell(slices.Max(r.closes), "ms"))
		}
		closeRow := benchRow{Metric: name + ": close the flooding pane", Agentgrid: closes(agErr, ag), Tmux: closes(tmErr, tm)}
		if agErr == nil && tmErr == nil {
			rss.Ratio = ratio(ag.peakRSS, tm.peakRSS)
			echoRow.Ratio = ratio(wbPercentile(ag.echo.echo, 99), wbPercentile(tm.echo.echo, 99)) + " (p99)"
			closeRow.Ratio = ratio(median(ag.closes), median(tm.closes)) + " (median)"
		}
		rows = append(rows, rss, echoRow, closeRow)
	}
	fmt.Fprintf(os.Stderr, "faults: floods: RSS is agentgrid's process vs the tmux server's; echo is typed in the main view (tmux: the first pane) and seen on the outer screen; close is `agentgrid close` vs `tmux kill-pane`, to the command's exit, the median (and the slowest) of %d floods of %v, each closed at its end\n", ffCycles, ffFloodFor/ffCycles)
	return rows, firstErr
}

// ffSampleRSS records pid's peak RSS until stop is set.
func ffSampleRSS(pid int, stop *atomic.Bool, peak *float64, done chan<- struct{}) {
	defer close(done)
	for !stop.Load() {
		if b, err := procRSS(pid); err == nil {
			*peak = max(*peak, float64(b)/(1<<20))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ffMeasure types into term for one cycle while sampling pid's RSS, and
// adds what it saw to r.
func ffMeasure(term *wbTerminal, pid int, r *ffResult) {
	// The probe starts from an empty line: ctrl+u empties what the last
	// cycle typed (not timed).
	_ = term.typeKeys("\x15")
	if err := term.waitScreen(5*time.Second, func(sc string) bool { return wbPromptLine(sc) == "" }); err != nil {
		r.echo.missed++
	}
	var stop atomic.Bool
	var peak float64
	var echo wbFlood
	sampled, probed := make(chan struct{}), make(chan struct{})
	go ffSampleRSS(pid, &stop, &peak, sampled)
	go func() { wbProbeEchoes(term, &stop, &echo); close(probed) }()
	time.Sleep(ffFloodFor / ffCycles)
	stop.Store(true)
	<-probed
	<-sampled
	r.peakRSS = max(r.peakRSS, peak)
	r.echo.echo = append(r.echo.echo, echo.echo...)
	r.echo.missed += echo.missed
}

func (e *wbEnv) floodSignalsAgentgrid(script string) (ffResult, error) {
	s, err := e.startAgentgrid("main-vertical", 160, 50)
	if err != nil {
		return ffResult{}, err
	}
	defer s.close()
	e.logf("agentgrid: flooding for %v", ffFloodFor)
	var r ffResult
	for i := range ffCycles {
		ctx, cancel := wbCall()
		a, err := s.client.Spawn(ctx, control.SpawnParams{Title: fmt.Sprintf("flood-%d", i+1), Argv: []string{"sh", "-c", script}})
		cancel()
		if err != nil {
			return r, err
		}
		ffMeasure(s.term, s.pid(), &r)
		d, err := fcTime(e.env, e.bin, "close", "--socket", s.client.Path(), a.ID)
		if err != nil {
			return r, err
		}
		r.closes = append(r.closes, wbMS(d))
	}
	return r, nil
}

func (e *wbEnv) floodSignalsTmux(script string) (ffResult, error) {
	s, err := e.startTmux(160, 50)
	if err != nil {
		return ffResult{}, err
	}
	defer s.close()
	pids, err := s.pids()
	if err != nil {
		return ffResult{}, err
	}
	e.logf("tmux: flooding for %v", ffFloodFor)
	var r ffResult
	for range ffCycles {
		out, err := s.ctl.run("split-window -d -h -P -F '#{pane_id}' " + wbTmuxQuote(script))
		if err != nil || len(out) == 0 {
			return r, fmt.Errorf("split-window: %v", err)
		}
		pane := strings.TrimSpace(out[0])
		ffMeasure(s.term, pids[0], &r)
		d, err := fcTime(e.env, "tmux", "-L", s.server, "-f", "/dev/null", "kill-pane", "-t", pane)
		if err != nil {
			return r, err
		}
		r.closes = append(r.closes, wbMS(d))
	}
	return r, nil
}
