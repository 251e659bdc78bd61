package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// benchTmux is a private tmux server (own socket, no config file) used the
// way a user would use it: detached sessions whose panes run `cat FILE`.
type benchTmux struct {
	path   string
	socket string
	dir    string // scratch directory for input files and FIFOs
	pid    int    // server process
	seq    int
}

// startBenchTmux starts a server with the given global options set before
// any pane exists (history-limit only applies to panes created after it).
func startBenchTmux(name string, options ...[2]string) (*benchTmux, error) {
	path, err := exec.LookPath("tmux")
	if err != nil {
		return nil, errNoTmux
	}
	dir, err := os.MkdirTemp("", "agentgrid-bench-")
	if err != nil {
		return nil, fmt.Errorf("create a scratch directory: %w", err)
	}
	t := &benchTmux{path: path, socket: fmt.Sprintf("agentgrid-bench-%s-%d", name, os.Getpid()), dir: dir}
	// The control session keeps the server alive between measurements; its
	// pane is idle and present in every before/after reading alike.
	args := []string{"new-session", "-d", "-s", "ctl", "-x", "80", "-y", "24", "exec sleep 86400", ";", "set", "-g", "status", "off"}
	for _, o := range options {
		args = append(args, ";", "set", "-g", o[0], o[1])
	}
	if _, err := t.run(args...); err != nil {
		t.close()
		return nil, err
	}
	out, err := t.run("display", "-p", "-t", "ctl", "#{pid}")
	if err != nil {
		t.close()
		return nil, err
	}
	if t.pid, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
		t.close()
		return nil, fmt.Errorf("read the tmux server pid from %q: %w", out, err)
	}
	return t, nil
}

func (t *benchTmux) run(args ...string) ([]byte, error) {
	cmd := exec.Command(t.path, append([]string{"-L", t.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "TMUX=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("tmux %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func (t *benchTmux) close() {
	sock, _ := t.run("display", "-p", "-t", "ctl", "#{socket_path}")
	_ = exec.Command(t.path, "-L", t.socket, "kill-server").Run()
	// tmux leaves its socket file behind when killed.
	if p := strings.TrimSpace(string(sock)); p != "" {
		_ = os.Remove(p)
	}
	_ = os.RemoveAll(t.dir)
}

// feedPane is a pane that will `cat` one input file when released.
type feedPane struct {
	t       *benchTmux
	session string
	fifo    string
	title   string
}

// newFeedPane creates a cols x rows pane whose shell waits on a FIFO, then
// cats file in raw mode and sets a title as an in-band barrier: once tmux
// shows the title it has parsed every byte before it.
func (t *benchTmux) newFeedPane(cols, rows int, file string) (*feedPane, error) {
	t.seq++
	p := &feedPane{t: t, session: fmt.Sprintf("s%d", t.seq), fifo: filepath.Join(t.dir, fmt.Sprintf("go%d", t.seq)), title: fmt.Sprintf("agentgrid-bench-done-%d", t.seq)}
	if err := syscall.Mkfifo(p.fifo, 0o600); err != nil {
		return nil, fmt.Errorf("create a FIFO: %w", err)
	}
	cmd := fmt.Sprintf(`stty raw -echo; cat '%s' >/dev/null; cat '%s'; printf '\033]2;%s\033\\'; exec cat >/dev/null`, p.fifo, file, p.title)
	if _, err := t.run("new-session", "-d", "-s", p.session, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), cmd); err != nil {
		return nil, err
	}
	return p, nil
}

// waitReady blocks until the pane's shell is waiting on the FIFO (so the
// cost of creating the pane is over) and returns the open FIFO; closing it
// starts the feed.
func (p *feedPane) waitReady(timeout time.Duration) (*os.File, error) {
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.OpenFile(p.fifo, os.O_WRONLY, 0) // blocks until the reader opens it
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("open the pane's FIFO: %w", r.err)
		}
		return r.f, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("tmux pane %s did not start within %v", p.session, timeout)
	}
}

// waitDone polls the pane title until the barrier appears. Each poll is one
// short client request to the server; at 50 ms intervals their cost is far
// below the resolution of the CPU counters.
func (p *feedPane) waitDone(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		out, err := p.t.run("display", "-p", "-t", p.session, "#{pane_title}")
		if err == nil && strings.TrimSpace(string(out)) == p.title {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("tmux pane %s did not finish within %v (last error: %v)", p.session, timeout, err)
		}
		time.Sleep(50 * time.Millisecond) // poll interval, bounded by the deadline
	}
}

func (p *feedPane) format(f string) string {
	out, _ := p.t.run("display", "-p", "-t", p.session, f)
	return strings.TrimSpace(string(out))
}

func (p *feedPane) kill() { _, _ = p.t.run("kill-session", "-t", p.session) }

// procCPU returns a process's user+system CPU time from /proc/<pid>/stat.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read tmux server CPU time: %w", err)
	}
	// The command name (field 2) may contain spaces; fields resume after ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat format", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat format", pid)
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond, nil
}

// procRSS returns a process's resident set size in bytes.
func procRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0, fmt.Errorf("read tmux server memory: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, fmt.Errorf("unexpected /proc/%d/statm format", pid)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/statm format", pid)
	}
	return pages * int64(os.Getpagesize()), nil
}

// selfCPU returns this process's user+system CPU time (all threads,
// including the garbage collector's).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
