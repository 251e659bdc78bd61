package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/creack/pty"
)

// wbTerminal is the "user's terminal" of a workbench measurement: a program
// (agentgrid, or a tmux client) runs in a PTY owned by the bench, and its
// output is parsed by a vterm so the bench can see what is on screen.
type wbTerminal struct {
	cmd  *exec.Cmd
	ptmx *os.File
	vt   *vterm.Terminal

	changed chan struct{} // poked after every chunk of output
	done    chan struct{} // closed when the output ends
	written atomic.Int64  // bytes the program wrote to its terminal

	watch atomic.Pointer[wbWatch] // a screen condition the reader checks
}

// wbWatch is a condition on the screen that the terminal's reader checks
// after each chunk it parsed; at gets the time that chunk was parsed, once.
type wbWatch struct {
	cond func(screen string) bool
	at   chan time.Time
}

// wbStartTerminal runs argv in a cols x rows PTY with env.
func wbStartTerminal(argv, env []string, cols, rows int) (*wbTerminal, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return nil, fmt.Errorf("start %s in a terminal: %w", argv[0], err)
	}
	t := &wbTerminal{cmd: cmd, ptmx: ptmx, changed: make(chan struct{}, 1), done: make(chan struct{})}
	// Replies to the program's terminal queries go back into its input,
	// as a real terminal's would.
	t.vt = vterm.New(cols, rows, vterm.WithReplyWriter(ptmx))
	go t.readLoop()
	return t, nil
}

func (t *wbTerminal) readLoop() {
	defer close(t.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := t.ptmx.Read(buf)
		if n > 0 {
			t.written.Add(int64(n))
			_, _ = t.vt.Write(buf[:n])
			if w := t.watch.Load(); w != nil {
				// Stamped before the check: the screen showed it from then.
				at := time.Now()
				if w.cond(t.vt.Text()) && t.watch.CompareAndSwap(w, nil) {
					w.at <- at
				}
			}
			select {
			case t.changed <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// typeKeys writes s as if typed on the keyboard.
func (t *wbTerminal) typeKeys(s string) error {
	_, err := io.WriteString(t.ptmx, s)
	return err
}

// waitScreen waits until cond holds for the screen text.
func (t *wbTerminal) waitScreen(timeout time.Duration, cond func(screen string) bool) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if cond(t.vt.Text()) {
			return nil
		}
		select {
		case <-t.changed:
		case <-t.done:
			if cond(t.vt.Text()) {
				return nil
			}
			return errors.New("the terminal's program exited")
		case <-deadline.C:
			return fmt.Errorf("not on screen after %v", timeout)
		}
	}
}

// watchScreen starts watching for cond on the screen: the channel gets
// the time at which the chunk of output that made cond hold had been
// parsed, whoever waits for it and however late. One watch at a time.
func (t *wbTerminal) watchScreen(cond func(screen string) bool) <-chan time.Time {
	w := &wbWatch{cond: cond, at: make(chan time.Time, 1)}
	t.watch.Store(w)
	return w.at
}

// waitWatch waits up to timeout for a watch's time.
func (t *wbTerminal) waitWatch(at <-chan time.Time, timeout time.Duration) (time.Time, error) {
	select {
	case ts := <-at:
		return ts, nil
	case <-time.After(timeout):
		t.watch.Store(nil)
		return time.Time{}, fmt.Errorf("not on screen after %v", timeout)
	}
}

// waitQuiet waits until the program has written nothing for quiet.
func (t *wbTerminal) waitQuiet(quiet, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	last, since := t.written.Load(), time.Now()
	for time.Since(since) < quiet {
		if time.Now().After(deadline) {
			return fmt.Errorf("the terminal did not go quiet within %v", timeout)
		}
		time.Sleep(quiet / 10)
		if n := t.written.Load(); n != last {
			last, since = n, time.Now()
		}
	}
	return nil
}

// close hangs up the terminal and waits for its program to end.
func (t *wbTerminal) close() {
	_ = t.cmd.Process.Signal(syscall.SIGHUP)
	exited := make(chan struct{})
	go func() { _ = t.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(8 * time.Second):
		_ = t.cmd.Process.Kill()
		<-exited
	}
	_ = t.ptmx.Close()
}

// wbProcessCPU returns the CPU time a process's threads have run, from the
// scheduler's nanosecond counters (/proc/PID/task/TID/schedstat): the tick
// counts of /proc/PID/stat are too coarse for an idle process over 10 s.
func wbProcessCPU(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("read the CPU time of process %d: no scheduler statistics", pid)
	}
	var total time.Duration
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended between the glob and the read
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, _ := strconv.ParseInt(f[0], 10, 64)
		total += time.Duration(ns)
	}
	return total, nil
}

// wbRunWait returns how long the threads of pids have waited for a CPU while
// runnable (the second field of schedstat), summed over threads, and the
// CPU time they used. A latency that is mostly run-queue wait is the
// machine's scheduling, not the program's own work.
func wbRunWait(pids ...int) (wait, cpu time.Duration) {
	for _, pid := range pids {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
		for _, p := range tasks {
			b, err := os.ReadFile(p)
			if err != nil {
				continue // the thread ended between the glob and the read
			}
			f := strings.Fields(string(b))
			if len(f) < 2 {
				continue
			}
			run, _ := strconv.ParseInt(f[0], 10, 64)
			waited, _ := strconv.ParseInt(f[1], 10, 64)
			cpu += time.Duration(run)
			wait += time.Duration(waited)
		}
	}
	return wait, cpu
}

// wbProcessesCPU sums the CPU time of pids.
func wbProcessesCPU(pids ...int) (time.Duration, error) {
	var total time.Duration
	for _, p := range pids {
		c, err := wbProcessCPU(p)
		if err != nil {
			return 0, err
		}
		total += c
	}
	return total, nil
}

// wbCPUOver measures the CPU share (percent of one core) used by pids over d.
func wbCPUOver(d time.Duration, pids ...int) (float64, error) {
	before, err := wbProcessesCPU(pids...)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	time.Sleep(d)
	after, err := wbProcessesCPU(pids...)
	if err != nil {
		return 0, err
	}
	return 100 * float64(after-before) / float64(time.Since(start)), nil
}

// wbTmuxControl is a tmux control-mode client: commands go to its stdin and
// each reply comes back between %begin and %end, over one connection, like
// agentgrid's socket client.
type wbTmuxControl struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	mu  sync.Mutex
}

func wbStartTmuxControl(server, session string, env []string) (*wbTmuxControl, error) {
	cmd := exec.Command("tmux", "-L", server, "-f", "/dev/null", "-C", "attach", "-t", session)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start a tmux control client: %w", err)
	}
	c := &wbTmuxControl{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	// The attach itself produces one empty reply block.
	if _, err := c.readReply(); err != nil {
		return nil, err
	}
	// Without this the server copies every pane's output to this client,
	// work a user's tmux would not do.
	if _, err := c.run("refresh-client -f no-output"); err != nil {
		return nil, err
	}
	return c, nil
}

// run sends one command line and returns its output lines.
func (c *wbTmuxControl) run(command string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := io.WriteString(c.in, command+"\n"); err != nil {
		return nil, fmt.Errorf("tmux control: %w", err)
	}
	return c.readReply()
}

func (c *wbTmuxControl) readReply() ([]string, error) {
	var lines []string
	in := false
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("tmux control client: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "%begin"):
			in, lines = true, nil
		case strings.HasPrefix(line, "%end"):
			return lines, nil
		case strings.HasPrefix(line, "%error"):
			return nil, fmt.Errorf("tmux: %s", strings.Join(lines, " "))
		case in:
			lines = append(lines, line)
		}
	}
}

func (c *wbTmuxControl) close() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
	}
}

// wbTmuxQuote quotes a shell command for a tmux command line.
func wbTmuxQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// wbWaitUntil polls cond every interval until it holds or ctx ends.
func wbWaitUntil(ctx context.Context, interval time.Duration, cond func() bool) error {
	for {
		if cond() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
