package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/watchdog"
)

// procGroup is a process's group id from /proc; ok is false when it is gone
// or a zombie.
func procGroup(pid int) (pgid int, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	pgid, err = strconv.Atoi(f[2])
	return pgid, err == nil
}

// liveInGroups lists the live processes whose group is one of groups.
func liveInGroups(groups map[int]bool) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, ok := procGroup(pid); ok && groups[g] {
			out = append(out, pid)
		}
	}
	return out
}

func cmdline(pid int) []string {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// TestKilledSessionTakesEveryAgentWithIt SIGKILLs the session server (nothing of it
// runs: no shutdown, no signal handler) while the main view and two agents
// ignore SIGHUP and SIGTERM, and finds every process of their groups, and
// the watchdog, gone within 3 s.
func TestKilledSessionTakesEveryAgentWithIt(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the processes")
	}
	h := newHarness(t, 120, 40, "")
	stubborn := []string{"sh", "-c", "trap '' HUP TERM; sleep 1000 & wait; sleep 1000"}
	h.startSession(append([]string{"--"}, stubborn...)...)
	for range 2 {
		h.spawn(append([]string{"--"}, stubborn...)...)
	}
	groups := map[int]bool{}
	var agentgrid, wd int
	h.waitFor(10*time.Second, func() bool {
		as, err := h.list()
		if err != nil || len(as) != 2 {
			return false
		}
		groups = map[int]bool{}
		for _, a := range as {
			if a.PID == 0 {
				return false
			}
			groups[a.PID] = true
		}
		agentgrid, wd = 0, 0
		for _, p := range descendants(h.panePID()) {
			switch args := cmdline(p); {
			case watchdog.IsCmdline([]byte(strings.Join(args, "\x00"))):
				wd = p
			case filepath.Base(args[0]) == "agentgrid" && len(args) > 1 && args[1] == "__server":
				// The session server: the terminal's agentgrid only attaches.
				agentgrid = p
			}
		}
		// Each group holds its shell and the shell's sleep.
		return agentgrid != 0 && wd != 0 && len(liveInGroups(groups)) == 4
	}, "two agents with their sleeps, agentgrid and its watchdog")
	// The main view is an agent too.
	for _, p := range descendants(agentgrid) {
		if pp, _, _ := procStat(p); pp == agentgrid && p != wd {
			groups[p] = true
		}
	}
	if len(groups) != 3 {
		t.Fatalf("found %d agent groups (%v), want 3 with the main view", len(groups), groups)
	}

	if err := syscall.Kill(agentgrid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	deadline := killed.Add(3 * time.Second)
	for {
		left := liveInGroups(groups)
		if len(left) == 0 && !alive(wd) {
			t.Logf("every agent process and the watchdog were gone %v after the SIGKILL", time.Since(killed).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("3 s after agentgrid was killed, agents' processes %v are alive (watchdog alive: %v)", left, alive(wd))
		}
		time.Sleep(20 * time.Millisecond) // polling the process table
	}
}

// TestOrderlyQuitKeepsTheGraceSequence: with the watchdog in place, quitting
// still gives agents SIGHUP first (a trap sees it and gets to clean up).
func TestOrderlyQuitKeepsTheGraceSequence(t *testing.T) {
	h := newHarness(t, 120, 40, "")
	mark := filepath.Join(h.home, "hup-seen")
	h.startSession()
	h.spawn("--", "sh", "-c", "trap 'echo hup > "+mark+"; exit 0' HUP; while :; do sleep 1; done")
	h.waitFor(10*time.Second, func() bool {
		as, err := h.list()
		// Its pid: a quiet loop may already count as idle.
		return err == nil && len(as) == 1 && as[0].PID > 0 && slices.Contains(liveStates, as[0].State)
	}, "the agent to run")
	h.prefix("q")
	h.waitFor(5*time.Second, func() bool { return strings.Contains(h.capture(), "Quit agentgrid?") }, "the quit question")
	h.keys("y")
	h.waitFor(15*time.Second, func() bool {
		_, err := os.Stat(mark)
		return err == nil && strings.Contains(h.capture(), strings.TrimSpace(prompt))
	}, "the agent's HUP trap to run and the shell prompt to return")
}
