//go:build linux

package watchdog

import (
	"os"
	"strconv"
	"syscall"

	"github.com/agentgrid/agentgrid/internal/procstat"
)

// killSessions SIGKILLs every live process whose session is one of sids
// (read from /proc) and returns how many it signalled.
func killSessions(sids map[int]bool) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	self, n := os.Getpid(), 0
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == self {
			continue
		}
		st, ok := procstat.Read(pid)
		if !ok || st.Zombie() {
			continue
		}
		if sids[st.Session] && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
