// Package watchdog ends every agent's process group when the session dies,
// by any cause.
//
// An orderly end (quit, SIGHUP, SIGTERM, a panic) runs the engine's Shutdown: HUP,
// TERM, then KILL to each agent's process group. A SIGKILLed or crashed
// agentgrid runs nothing, and agents that ignore SIGHUP would live on,
// reparented to init. So at start the session starts a small process whose
// stdin is a pipe only the session holds the write end of (close-on-exec: no
// agent inherits it). The session writes each agent's process group to it as
// the agent starts ("+PGID"), and tells it to forget a group once the group's
// leader has exited and the group is empty ("-PGID"; the session polls a
// group whose leader left members behind). When the session dies the kernel
// closes the pipe; the watchdog reads EOF, SIGKILLs every group it still
// holds (and, on Linux, every process still in one of those sessions, which
// catches a job-control shell's jobs), and exits. After an orderly end it
// holds nothing, or only groups whose stragglers survived the grace sequence.
//
// The watchdog is a POSIX shell blocked in read(2) (see shellWatchdog): a
// process that only waits should cost nothing while it waits, and every Go
// process wakes once a minute (the runtime's monitor thread) whether or not
// it has work. At EOF the shell kills the groups and, if there were any,
// hands them to `agentgrid __watchdog` (Run) for the sweep of their
// sessions. Where /bin/sh cannot be started, `agentgrid __watchdog` is the
// watchdog itself.
//
// The watchdog sits in its own process group and ignores HUP, INT, TERM and
// QUIT, so the terminal closing or a signal meant for agentgrid does not take
// it down first; it never outlives the pipe. One that ends while the session
// runs (SIGKILLed by hand) is replaced and told every group again.
package watchdog

import (
	"bufio"
	"bytes"
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

// Name is the shell watchdog's $0, by which it can be told apart in a
// process listing.
const Name = "agentgrid-watchdog"

// shell runs the watchdog script (a variable for tests).
var shell = "/bin/sh"

// shellWatchdog is the watchdog as a shell script ($1 is agentgrid's binary).
// It keeps the recorded groups in g, a space-separated list with a space at
// each end, so that " PGID " finds one exactly.
const shellWatchdog = `# agentgrid watchdog: ends the session's agents when the session dies
trap '' HUP INT TERM QUIT
set -f
g=' '
while IFS= read -r l; do
	p=${l#?}
	case $p in ''|0|1|*[!0-9]*) continue ;; esac
	case $l in
	+*) case $g in *" $p "*) ;; *) g="$g$p " ;; esac ;;
	-*) case $g in *" $p "*) g="${g%% $p *} ${g#* $p }" ;; esac ;;
	esac
done
[ "$g" = ' ' ] && exit 0
for p in $g; do kill -s KILL -- "-$p" 2>/dev/null; done
printf '+%s\n' $g | exec "$1" ` + Command + `
`

// IsCmdline says whether a process's arguments (as /proc/PID/cmdline has
// them, each ended by a NUL) are a watchdog's, the shell's or the Go one's.
func IsCmdline(cmdline []byte) bool {
	for _, arg := range bytes.Split(cmdline, []byte{0}) {
		if string(arg) == Name || string(arg) == Command {
			return true
		}
	}
	return false
}

// Process is the session's end of the watchdog process. A watchdog that
// ends while the session runs (killed by hand, say) is replaced, and told
// every group again.
type Process struct {
	exe   string
	shell string // the shell that runs the script
	log   *slog.Logger

	mu       sync.Mutex
	cmd      *exec.Cmd
	w        *os.File
	closed   bool         // Close was called
	broken   bool         // no watchdog: it keeps ending, or cannot be started
	stuck    bool         // a write to this watchdog failed: skip it until it is replaced
	watched  map[int]bool // groups told with "+PGID" and not yet forgotten
	draining map[int]bool // groups whose leader exited and that still have members
	poll     *time.Timer  // set while draining is not empty
	restarts []time.Time  // when the watchdog was replaced, within restartWindow
}

// watchdogWrite bounds one message to a stuck watchdog; the engine must
// never wait on it.
const watchdogWrite = 200 * time.Millisecond

// maxRestarts watchdogs ending within restartWindow mean that it cannot
// run here; the session then goes on without one, and says so.
const (
	maxRestarts   = 3
	restartWindow = time.Minute
)

// Start starts the watchdog, the shell script or else `exe __watchdog`, with
// a pipe on its stdin.
func Start(exe string, log *slog.Logger) (*Process, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Process{exe: exe, shell: shell, log: log, watched: map[int]bool{}, draining: map[int]bool{}}
	if err := d.launch(); err != nil {
		return nil, err
	}
	return d, nil
}

// launch starts a watchdog process on a new pipe and reaps it when it ends;
// d.mu is held, or d is not shared yet.
func (d *Process) launch() error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start the watchdog: %w", err)
	}
	defer func() { _ = r.Close() }()
	// The shell gets no environment but PATH: nothing the user's
	// environment holds (ENV, BASH_ENV) may run in it.
	cmd, err := start(r, []string{"PATH=" + os.Getenv("PATH")}, d.shell, "-c", shellWatchdog, Name, d.exe)
	if err != nil {
		d.log.Debug("no shell for the watchdog; running it in Go", "err", err)
		cmd, err = start(r, nil, d.exe, Command)
	}
	if err != nil {
		_ = w.Close()
		return fmt.Errorf("start the watchdog %s: %w", d.exe, err)
	}
	d.cmd, d.w, d.stuck = cmd, w, false
	go d.reap(cmd)
	return nil
}

// reap waits for a watchdog process to end; unless the session hung up on
// it, another takes its place and learns every group.
func (d *Process) reap(cmd *exec.Cmd) {
	err := cmd.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.broken || d.cmd != cmd {
		return
	}
	_ = d.w.Close()
	now := time.Now()
	recent := d.restarts[:0]
	for _, t := range d.restarts {
		if now.Sub(t) < restartWindow {
			recent = append(recent, t)
		}
	}
	d.restarts = recent
	if len(recent) >= maxRestarts {
		d.broken = true
		d.log.Warn("the watchdog keeps ending; going on without one: agents that ignore SIGHUP may outlive a crash of this session", "err", err)
		return
	}
	d.restarts = append(d.restarts, now)
	if lerr := d.launch(); lerr != nil {
		d.broken = true
		d.log.Warn("the watchdog ended and no other could be started: agents that ignore SIGHUP may outlive a crash of this session", "err", err, "start", lerr)
		return
	}
	d.log.Warn("the watchdog ended; started another", "err", err, "pid", d.cmd.Process.Pid)
	for pgid := range d.watched {
		d.send('+', pgid)
	}
}

// start starts argv in a process group of its own with r as its stdin and
// env as its environment (nil: this process's).
func start(r *os.File, env []string, argv ...string) (*exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Dir, cmd.Env = r, "/", env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, cmd.Start()
}

// Pid is the current watchdog's process id.
func (d *Process) Pid() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cmd.Process.Pid
}

// Watch records an agent's process group.
func (d *Process) Watch(pgid int) {
	if pgid <= 1 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.watched[pgid] = true
	d.send('+', pgid)
}

// Exited tells the watchdog that the group's leader has exited: the group
// is forgotten once it is empty, so that a long session never kills a
// later, unrelated owner of a reused process group id.
func (d *Process) Exited(pgid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.watched[pgid] {
		return
	}
	if groupGone(pgid) {
		d.forget(pgid)
		return
	}
	d.draining[pgid] = true
	if d.poll == nil {
		d.poll = time.AfterFunc(drainPoll, d.drain)
	}
}

// drainPoll is how often the session checks groups whose leader exited.
const drainPoll = time.Second

// drain forgets the draining groups that have emptied, and polls again
// while any is left.
func (d *Process) drain() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for pgid := range d.draining {
		if groupGone(pgid) {
			delete(d.draining, pgid)
			d.forget(pgid)
		}
	}
	if len(d.draining) == 0 || d.closed {
		d.poll = nil
		return
	}
	d.poll.Reset(drainPoll)
}

// groupGone says whether a process group is no longer ours: ESRCH, it is
// empty; EPERM, the id now belongs to someone else's group.
func groupGone(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return errors.Is(err, syscall.ESRCH) || errors.Is(err, syscall.EPERM)
}

// forget tells the watchdog to forget an emptied group; d.mu is held.
func (d *Process) forget(pgid int) {
	if d.watched[pgid] {
		delete(d.watched, pgid)
		d.send('-', pgid)
	}
}

// send writes one line to the watchdog; d.mu is held. After a failed
// write (the watchdog ended, or stopped reading) nothing more is written
// to it: a watchdog that ended is replaced by reap, which tells the new one
// every group.
func (d *Process) send(op byte, pgid int) {
	if pgid <= 1 || d.closed || d.broken || d.stuck {
		return
	}
	_ = d.w.SetWriteDeadline(time.Now().Add(watchdogWrite))
	if _, err := fmt.Fprintf(d.w, "%c%d\n", op, pgid); err != nil {
		d.stuck = true
		d.log.Warn("the watchdog does not read; agents that ignore SIGHUP may outlive a crash of this session until it is replaced", "err", err)
	}
}

// Close hangs up: the watchdog kills whatever is left of the recorded
// groups and exits. Call it after the engine's Shutdown.
func (d *Process) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.poll != nil {
		d.poll.Stop()
		d.poll = nil
	}
	if err := d.w.Close(); !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil // a watchdog that ended and was not replaced
}

// Run is the watchdog in Go: it reads "+PGID" and "-PGID" lines from r
// until EOF, then kills every group recorded and not forgotten.
func Run(r io.Reader) {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	groups := map[int]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		pgid, err := strconv.Atoi(strings.TrimSpace(line[min(1, len(line)):]))
		if err != nil || pgid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			groups[pgid] = true
		case '-':
			delete(groups, pgid)
		}
	}
	killGroups(groups)
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
