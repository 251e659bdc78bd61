package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procStat reads a process's parent pid and state from /proc; ok is false
// when the process is gone.
func procStat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may contain spaces; the fields
	// after the last ')' are "state ppid ...".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0], true
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// descendants returns every live process below pid in the process tree.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, _, ok := procStat(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if alive(c) {
				out = append(out, c)
			}
			queue = append(queue, c)
		}
	}
	return out
}

// panePID is the pid of the shell running in the tmux window.
func (h *harness) panePID() int {
	h.t.Helper()
	out := strings.TrimSpace(h.mustTmux("display-message", "-p", "-t", "e2e", "#{pane_pid}"))
	pid, err := strconv.Atoi(out)
	if err != nil {
		h.t.Fatalf("tmux pane pid %q: %v", out, err)
	}
	return pid
}

// reapLeftovers kills processes a failed test left behind, so one broken
// run does not leave sleepers on the machine. It reports what it had to kill.
func reapLeftovers(pids []int) []int {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		left := 0
		for _, p := range pids {
			if alive(p) {
				left++
			}
		}
		if left == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	var killed []int
	for _, p := range pids {
		if alive(p) {
			_ = syscall.Kill(p, syscall.SIGKILL)
			killed = append(killed, p)
		}
	}
	return killed
}
