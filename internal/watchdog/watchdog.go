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
// it down first; it never outlives the pipe.
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

// Process is the session's end of the watchdog process.
type Process struct {
	cmd *exec.Cmd
	w   *os.File
	log *slog.Logger

	mu       sync.Mutex
	broken   bool
	draining map[int]bool // groups whose leader exited and that still have members
	poll     *time.Timer  // set while draining is not empty
}

// watchdogWrite bounds one message to a stuck watchdog; the engine must
// never wait on it.
const watchdogWrite = 200 * time.Millisecond

// Start starts the watchdog, the shell script or else `exe __watchdog`, with
// a pipe on its stdin.
func Start(exe string, log *slog.Logger) (*Process, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the watchdog: %w", err)
	}
	defer func() { _ = r.Close() }()
	// The shell gets no environment but PATH: nothing the user's
	// environment holds (ENV, BASH_ENV) may run in it.
	cmd, err := start(r, []string{"PATH=" + os.Getenv("PATH")}, shell, "-c", shellWatchdog, Name, exe)
	if err != nil {
		log.Debug("no shell for the watchdog; running it in Go", "err", err)
		cmd, err = start(r, nil, exe, Command)
	}
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("start the watchdog %s: %w", exe, err)
	}
	go func() { _ = cmd.Wait() }() // reap it whenever it ends
	return &Process{cmd: cmd, w: w, log: log, draining: map[int]bool{}}, nil
}

// start starts argv in a process group of its own with r as its stdin and
// env as its environment (nil: this process's).
func start(r *os.File, env []string, argv ...string) (*exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Dir, cmd.Env = r, "/", env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, cmd.Start()
}

// Pid is the watchdog's process id.
func (d *Process) Pid() int { return d.cmd.Process.Pid }

// Watch records an agent's process group.
func (d *Process) Watch(pgid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.send('+', pgid)
}

// Exited tells the watchdog that the group's leader has exited: the group
// is forgotten once it is empty, so that a long session never kills a
// later, unrelated owner of a reused process group id.
func (d *Process) Exited(pgid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if groupGone(pgid) {
		d.send('-', pgid)
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
			d.send('-', pgid)
		}
	}
	if len(d.draining) == 0 || d.broken {
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

// send writes one line to the watchdog; d.mu is held.
func (d *Process) send(op byte, pgid int) {
	if pgid <= 1 || d.broken {
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
	if d.poll != nil {
		d.poll.Stop()
		d.poll = nil
	}
	return d.w.Close()
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
