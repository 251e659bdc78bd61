// Package watchdog ends every agent's process group when the session dies,
// by any cause.
//
// An orderly end (quit, SIGHUP, SIGTERM, a panic) runs the engine's Shutdown: HUP,
// TERM, then KILL to each agent's process group. A SIGKILLed or crashed
// agentgrid runs nothing, and agents that ignore SIGHUP would live on,
// reparented to init. So at start the session re-executes its own binary as
// a small process (`agentgrid __watchdog`) whose stdin is a pipe only the
// session holds the write end of (close-on-exec: no agent inherits it). The
// session writes each agent's process group to it as the agent starts. When
// the session dies the kernel closes the pipe; the watchdog reads EOF,
// SIGKILLs every recorded group (and, on Linux, every process still in one
// of those sessions, which catches a job-control shell's jobs), and exits.
// After an orderly end it finds nothing left but stragglers that survived
// the grace sequence by leaving their agent's group leader behind.
//
// The watchdog sits in its own process group and ignores HUP, INT, TERM and
// QUIT, so the terminal closing or a signal meant for agentgrid does not take
// it down first; it never outlives the pipe. A group whose leader has exited
// is polled until it is empty and then forgotten, so that a long session
// never kills a later, unrelated owner of a reused process group id.
package watchdog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Command is the hidden subcommand that runs Run.
const Command = "__watchdog"

// Process is the session's end of the watchdog process.
type Process struct {
	cmd    *exec.Cmd
	w      *os.File
	log    *slog.Logger
	mu     sync.Mutex
	broken bool
}

// watchdogWrite bounds one message to a stuck watchdog; the engine must
// never wait on it.
const watchdogWrite = 200 * time.Millisecond

// Start starts `exe __watchdog` with a pipe on its stdin.
func Start(exe string, log *slog.Logger) (*Process, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the watchdog: %w", err)
	}
	cmd := exec.Command(exe, Command)
	cmd.Stdin, cmd.Dir = r, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, fmt.Errorf("start the watchdog %s: %w", exe, err)
	}
	_ = r.Close()
	go func() { _ = cmd.Wait() }() // reap it whenever it ends
	return &Process{cmd: cmd, w: w, log: log}, nil
}

// Pid is the watchdog's process id.
func (d *Process) Pid() int { return d.cmd.Process.Pid }

// Watch records an agent's process group.
func (d *Process) Watch(pgid int) { d.send('+', pgid) }

// Exited tells the watchdog that the group's leader has exited: it forgets
// the group once the group is empty.
func (d *Process) Exited(pgid int) { d.send('-', pgid) }

func (d *Process) send(op byte, pgid int) {
	if pgid <= 1 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.broken {
		return
	}
	_ = d.w.SetWriteDeadline(time.Now().Add(watchdogWrite))
	if _, err := fmt.Fprintf(d.w, "%c%d\n", op, pgid); err != nil {
		d.broken = true
		d.log.Warn("the watchdog is gone; agents that ignore SIGHUP may outlive a crash of this session", "err", err)
	}
}

// Close hangs up: the watchdog kills whatever is left of the recorded
// groups and exits. Call it after the engine's Shutdown.
func (d *Process) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.broken = true
	return d.w.Close()
}

// drainPoll is how often the watchdog checks groups whose leader exited.
const drainPoll = time.Second

// Run is the watchdog process: it reads "+PGID" and "-PGID" lines
// from r until EOF, then kills every recorded group.
func Run(r io.Reader) {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	groups := map[int]bool{} // pgid -> its leader has exited
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var tick <-chan time.Time
	var ticker *time.Ticker
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				killGroups(groups)
				return
			}
			pgid, err := strconv.Atoi(strings.TrimSpace(line[min(1, len(line)):]))
			if err != nil || pgid <= 1 {
				continue
			}
			switch line[0] {
			case '+':
				groups[pgid] = false
			case '-':
				if _, ok := groups[pgid]; ok {
					groups[pgid] = true
				}
			}
		case <-tick:
		}
		draining := false
		for pgid, exited := range groups {
			if !exited {
				continue
			}
			// ESRCH: the group is empty. EPERM: the id now belongs to
			// someone else's group. Either way it is no longer ours.
			if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) || errors.Is(err, syscall.EPERM) {
				delete(groups, pgid)
				continue
			}
			draining = true
		}
		switch {
		case draining && ticker == nil:
			ticker = time.NewTicker(drainPoll)
			tick = ticker.C
		case !draining && ticker != nil:
			ticker.Stop()
			ticker, tick = nil, nil
		}
	}
}

// killGroups SIGKILLs every group and, where the system lists processes by
// session, every process left in the agents' sessions. An agent is the
// leader of its own session, so its group id is also its session id.
func killGroups(groups map[int]bool) {
	if len(groups) == 0 {
		return
	}
	for range 3 {
		for pgid := range groups {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
		if killSessions(groups) == 0 {
			return
		}
	}
}
