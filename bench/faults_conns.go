package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

func init() {
	registerFault(faultPart{Name: "conns", Run: runConnsFault})
}

const (
	// fcIdle is how many idle connections are opened to each server.
	fcIdle = 1000
	// fcRuns is how many list commands each figure is the median and p99 of.
	fcRuns = 20
)

// runConnsFault opens fcIdle connections that send nothing to the session's
// control socket, then times `agentgrid list`; beside it, the same against
// a tmux server's socket and `tmux list-panes`.
func runConnsFault(o benchOptions) ([]benchRow, error) {
	if err := fcRaiseFDLimit(2*fcIdle + 256); err != nil {
		return nil, err
	}
	e, err := newWBEnv(os.Stderr)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(e.dir)
	s, err := e.startAgentgrid("main-vertical", 120, 40)
	if err != nil {
		return nil, err
	}
	defer s.close()
	sock := s.client.Path()
	agList := func() (time.Duration, error) {
		return fcTime(e.env, e.bin, "list", "--socket", sock)
	}

	var tm *wbTmux
	var tmSock string
	tmList := func() (time.Duration, error) { return 0, errNoTmux }
	if _, err := exec.LookPath("tmux"); err == nil {
		if tm, err = e.startTmux(120, 40); err != nil {
			return nil, err
		}
		defer tm.close()
		if tmSock, err = tm.tmux("display-message", "-p", "#{socket_path}"); err != nil {
			return nil, err
		}
		tmList = func() (time.Duration, error) {
			return fcTime(e.env, "tmux", "-L", tm.server, "-f", "/dev/null", "list-panes", "-a")
		}
	}

	var rows []benchRow
	row := func(what string, ag, tx []float64) {
		r := benchRow{Metric: what, Agentgrid: fcMedP99(ag)}
		if len(tx) > 0 {
			r.Tmux, r.Ratio = fcMedP99(tx), ratio(median(ag), median(tx))
		}
		rows = append(rows, r)
	}
	ag0, err := fcSample(agList)
	if err != nil {
		return nil, err
	}
	tx0, _ := fcSample(tmList)
	row(fmt.Sprintf("list latency, no idle connections (median, p99 of %d)", fcRuns), ag0, tx0)

	agConns, err := fcOpenIdle(sock)
	defer fcCloseAll(agConns)
	if err != nil {
		return rows, err
	}
	var txConns []net.Conn
	if tm != nil {
		txConns, err = fcOpenIdle(tmSock)
		defer fcCloseAll(txConns)
		if err != nil {
			return rows, err
		}
	}
	// The first list is also the sign that the server accepted every
	// connection before it (each server accepts in order).
	ag1, err := fcSample(agList)
	if err != nil {
		return rows, fmt.Errorf("agentgrid list with %d idle connections: %w", fcIdle, err)
	}
	tx1, _ := fcSample(tmList)
	row(fmt.Sprintf("list latency, %d idle connections open (median, p99 of %d)", fcIdle, fcRuns), ag1, tx1)

	// How many of them the servers still hold a while later.
	time.Sleep(6 * time.Second)
	held := benchRow{Metric: fmt.Sprintf("of the %d idle connections, still held by the server 6 s later", fcIdle),
		Agentgrid: fmt.Sprint(fcStillOpen(agConns))}
	if tm != nil {
		held.Tmux = fmt.Sprint(fcStillOpen(txConns))
	}
	rows = append(rows, held)
	fmt.Fprintf(os.Stderr, "faults: conns: agentgrid keeps at most 512 connections (+16 reserved for quick commands), lets a newcomer replace the longest idle one, and, once it holds more than 32, closes connections idle for 5 s\n")
	return rows, nil
}

// fcRaiseFDLimit lets this process (and the servers it starts) hold n
// descriptors.
func fcRaiseFDLimit(n uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("read the descriptor limit: %w", err)
	}
	if uint64(lim.Cur) >= n {
		return nil
	}
	if uint64(lim.Max) < n {
		return fmt.Errorf("the descriptor limit is %d; raise it to at least %d (ulimit -n %d)", lim.Max, n, n)
	}
	setLimit(&lim.Cur, n)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("raise the descriptor limit to %d: %w", n, err)
	}
	return nil
}

// setLimit sets a limit field, which is unsigned on Linux and signed on
// the BSDs.
func setLimit[T int64 | uint64](f *T, n uint64) { *f = T(n) }

// fcOpenIdle opens fcIdle connections to a unix socket and sends nothing.
func fcOpenIdle(path string) ([]net.Conn, error) {
	conns := make([]net.Conn, 0, fcIdle)
	deadline := time.Now().Add(30 * time.Second)
	for len(conns) < fcIdle {
		c, err := net.DialTimeout("unix", path, 5*time.Second)
		if errors.Is(err, syscall.EAGAIN) && time.Now().Before(deadline) {
			// The listen backlog is full until the server accepts more.
			time.Sleep(time.Millisecond)
			continue
		}
		if err != nil {
			return conns, fmt.Errorf("open idle connection %d to %s: %w", len(conns)+1, path, err)
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func fcCloseAll(conns []net.Conn) {
	for _, c := range conns {
		_ = c.Close()
	}
}

// fcStillOpen counts the connections the server has not closed: reading
// one the server closed returns its last words or EOF at once.
func fcStillOpen(conns []net.Conn) int {
	n := 0
	buf := make([]byte, 512)
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
		_, err := c.Read(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			n++
		}
	}
	return n
}

// fcSample runs f fcRuns times after one warm-up run, in milliseconds.
func fcSample(f func() (time.Duration, error)) ([]float64, error) {
	var ms []float64
	for i := -1; i < fcRuns; i++ {
		d, err := f()
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			ms = append(ms, wbMS(d))
		}
	}
	return ms, nil
}

// fcTime runs a command to its exit and times it.
func fcTime(env []string, name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return d, nil
}

func fcMedP99(xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (p99 %s)", wbCell(median(xs), "ms"), wbCell(wbPercentile(xs, 99), "ms"))
}
