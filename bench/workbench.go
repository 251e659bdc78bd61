package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/watchdog"
)

// The workbench section measures whole sessions: agentgrid in a PTY driven
// through its control socket, beside tmux measured the same way in the same
// run (a tmux client in a PTY, commands over a control-mode connection).
//
// Both sides run the same shell commands; every figure is lower-is-better,
// and the ratio is agentgrid / tmux.

// wbRow is one measured figure of the workbench section.
type wbRow struct {
	Name      string
	Unit      string
	Agentgrid float64
	Tmux      float64
	// Note says how the figure was taken, or what went wrong.
	Note string
}

// Ratio is agentgrid / tmux, NaN when either side is missing.
func (r wbRow) Ratio() float64 {
	if r.Tmux <= 0 || math.IsNaN(r.Tmux) || math.IsNaN(r.Agentgrid) {
		return math.NaN()
	}
	return r.Agentgrid / r.Tmux
}

const (
	wbPrompt    = "bench$ "
	wbIdlePanes = 16
	wbIdleFor   = 10 * time.Second
	// wbIdleLong extends the idle measurement past the first minute, when
	// the resting agents' badges turn from "<1m" to "1m": the one redraw an
	// idle session does by itself.
	wbIdleLong = 60 * time.Second
	// wbRedraws full redraws are asked for, wbRedrawGap apart.
	wbRedraws   = 100
	wbRedrawGap = 25 * time.Millisecond
	wbSpawns    = 30
	wbFloodN    = 8
	wbFloodSize = 20_000_000
	// wbFloodLine is the text every flooding pane prints, ~80 columns a line.
	wbFloodLine = "flood 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789"
)

// wbProfileDirEnv names a directory that receives a CPU profile of every
// agentgrid session the section runs, to see where the time went.
const wbProfileDirEnv = "AGENTGRID_BENCH_PROFILE_DIR"

// wbEnv is the isolated environment the section runs in.
type wbEnv struct {
	bin     string
	dir     string
	runtime string
	env     []string
	log     io.Writer
	seq     atomic.Int64
}

// runWorkbench builds agentgrid and measures every workbench figure. Progress
// goes to log; a figure that cannot be taken has NaN and a note.
func runWorkbench(log io.Writer, o benchOptions) ([]wbRow, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, errors.New("the workbench benchmarks need tmux installed, to measure it beside agentgrid")
	}
	e, err := newWBEnv(log)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(e.dir)
	var rows []wbRow
	if o.want("idle") {
		rows = append(rows, e.idle()...)
	}
	if o.want("spawn") {
		rows = append(rows, e.spawn()...)
	}
	if o.want("flood") {
		rows = append(rows, e.flood(o.Runs)...)
	}
	return rows, nil
}

func newWBEnv(log io.Writer) (*wbEnv, error) {
	root, err := wbRepoRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "agwb-")
	if err != nil {
		return nil, err
	}
	e := &wbEnv{dir: dir, runtime: filepath.Join(dir, "run"), bin: filepath.Join(dir, "agentgrid"), log: log}
	build := exec.Command("go", "build", "-o", e.bin, ".")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs it
	if out, err := build.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("build agentgrid for the workbench benchmarks: %v\n%s", err, out)
	}
	for _, d := range []string{e.runtime, filepath.Join(dir, "state"), filepath.Join(dir, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	e.env = []string{
		"HOME=" + dir,
		"PATH=" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/sh",
		"PS1=" + wbPrompt,
		"XDG_RUNTIME_DIR=" + e.runtime,
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		// tmux's sockets go away with the directory.
		"TMUX_TMPDIR=" + dir,
	}
	return e, nil
}

// wbRepoRoot finds the module root from the working directory.
func wbRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run the benchmarks from inside the agentgrid repository (no go.mod found)")
		}
		dir = parent
	}
}

func (e *wbEnv) logf(format string, args ...any) {
	if e.log != nil {
		fmt.Fprintf(e.log, "workbench: "+format+"\n", args...)
	}
}

// wbAgentgrid is an agentgrid session under measurement.
type wbAgentgrid struct {
	term   *wbTerminal
	client *control.Client
	server int    // the session server's pid: the process that does the work
	name   string // the session's name (agentgrid attach NAME)
}

func (e *wbEnv) startAgentgrid(layout string, cols, rows int) (*wbAgentgrid, error) {
	name := fmt.Sprintf("wb%d-%d", os.Getpid(), e.seq.Add(1))
	env := e.env
	if dir := os.Getenv(wbProfileDirEnv); dir != "" {
		// One CPU profile per session, written when the session ends.
		env = append(slices.Clone(env), "AGENTGRID_CPUPROFILE="+filepath.Join(dir, name+"-"+layout+".pprof"))
	}
	t, err := wbStartTerminal([]string{e.bin, "--session", name, "--layout", layout, "--", "sh"}, env, cols, rows)
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(e.runtime, "agentgrid", name+".sock")
	var c *control.Client
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err = wbWaitUntil(ctx, 20*time.Millisecond, func() bool {
		c, err = control.Dial(sock)
		return err == nil
	})
	if err != nil {
		t.close()
		return nil, fmt.Errorf("agentgrid's socket did not answer: %v\n%s", err, t.vt.Text())
	}
	s := &wbAgentgrid{term: t, client: c, name: name}
	ictx, icancel := wbCall()
	info, err := c.SessionInfo(ictx)
	icancel()
	if err != nil {
		t.close()
		return nil, fmt.Errorf("agentgrid's session.info: %v", err)
	}
	s.server = info.PID
	if err := t.waitScreen(10*time.Second, func(sc string) bool { return strings.Contains(sc, strings.TrimSpace(wbPrompt)) }); err != nil {
		s.close()
		return nil, fmt.Errorf("agentgrid's main view shows no shell prompt: %v", err)
	}
	return s, nil
}

// pid is the session server's: the engine, the panes and every client's
// composition run there; the attached terminal only relays bytes.
func (s *wbAgentgrid) pid() int { return s.server }

// pids are every agentgrid process of the session: the client in the
// terminal, the server and the server's watchdog, so that CPU figures
// count what tmux's server and client together are counted for.
func (s *wbAgentgrid) pids() []int {
	out := []int{s.server, s.term.cmd.Process.Pid}
	kids, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(s.server), "task", "*", "children"))
	for _, k := range kids {
		b, err := os.ReadFile(k)
		if err != nil {
			continue // the thread ended between the glob and the read
		}
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && watchdog.IsCmdline(cmdline) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// close hangs up the terminal (a detach) and ends the session server.
func (s *wbAgentgrid) close() {
	_ = s.client.Close()
	s.term.close()
	wbStopServer(s.server)
}

// wbStopServer ends a session server (SIGTERM: the orderly shutdown of
// its agents) and waits for it, killing it after 15 s.
func wbStopServer(pid int) {
	if pid <= 0 {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(15 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(20 * time.Millisecond) // polling for the process to end
	}
}

// wbCall gives one socket call a deadline.
func wbCall() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// wbTmux is a tmux server with one attached client under measurement.
type wbTmux struct {
	server string
	env    []string
	term   *wbTerminal
	ctl    *wbTmuxControl
}

func (e *wbEnv) startTmux(cols, rows int) (*wbTmux, error) {
	s := &wbTmux{server: fmt.Sprintf("agwb-%d-%d", os.Getpid(), e.seq.Add(1)), env: e.env}
	if _, err := s.tmux("new-session", "-d", "-s", "b", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "sh"); err != nil {
		return nil, err
	}
	t, err := wbStartTerminal([]string{"tmux", "-L", s.server, "-f", "/dev/null", "attach", "-t", "b"}, e.env, cols, rows)
	if err != nil {
		_, _ = s.tmux("kill-server")
		return nil, err
	}
	s.term = t
	if err := t.waitScreen(10*time.Second, func(sc string) bool { return strings.Contains(sc, strings.TrimSpace(wbPrompt)) }); err != nil {
		s.close()
		return nil, fmt.Errorf("the tmux client shows no shell prompt: %v", err)
	}
	if s.ctl, err = wbStartTmuxControl(s.server, "b", e.env); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *wbTmux) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-L", s.server, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// pids are the tmux processes a user pays for: the server and the client.
func (s *wbTmux) pids() ([]int, error) {
	out, err := s.tmux("display-message", "-p", "#{pid}")
	if err != nil {
		return nil, err
	}
	var server int
	if _, err := fmt.Sscan(out, &server); err != nil {
		return nil, fmt.Errorf("tmux server pid %q: %w", out, err)
	}
	return []int{server, s.term.cmd.Process.Pid}, nil
}

// ttyClient names the client attached from the terminal under measurement
// (not the control-mode client that sends the commands).
func (s *wbTmux) ttyClient() (string, error) {
	out, err := s.tmux("list-clients", "-F", "#{client_control_mode} #{client_name}")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "0 "); ok {
			return name, nil
		}
	}
	return "", fmt.Errorf("no terminal client attached to tmux: %q", out)
}

func (s *wbTmux) close() {
	if s.ctl != nil {
		s.ctl.close()
	}
	_, _ = s.tmux("kill-server")
	if s.term != nil {
		s.term.close()
	}
}

// wbPercentile returns the p-th percentile of a sample (nearest rank).
func wbPercentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func wbMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// wbCell formats a figure with its unit, or "" when it is missing.
func wbCell(v float64, unit string) string {
	if math.IsNaN(v) {
		return ""
	}
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	case v >= 1:
		return fmt.Sprintf("%.2f %s", v, unit)
	default:
		return fmt.Sprintf("%.3f %s", v, unit)
	}
}

func init() {
	register(benchSection{
		Name:  "workbench",
		About: "whole sessions at 240x70, agentgrid (socket) beside tmux (control mode) in the same run; lower is better",
		Run: func(o benchOptions) ([]benchRow, error) {
			rows, err := runWorkbench(os.Stderr, o)
			return wbBenchRows("workbench", rows), err
		},
	})
}

// wbBenchRows turns a section's rows into the table's, with each row's
// note on stderr under the section's name.
func wbBenchRows(section string, rows []wbRow) []benchRow {
	out := make([]benchRow, 0, len(rows))
	for _, r := range rows {
		br := benchRow{Metric: r.Name, Agentgrid: wbCell(r.Agentgrid, r.Unit), Tmux: wbCell(r.Tmux, r.Unit)}
		if q := r.Ratio(); !math.IsNaN(q) {
			br.Ratio = fmt.Sprintf("%.2fx", q)
		}
		out = append(out, br)
		if r.Note != "" {
			fmt.Fprintf(os.Stderr, "%s: %s: %s\n", section, r.Name, r.Note)
		}
	}
	return out
}
