//go:build linux

package watchdog

import (
	"os"
	"strconv"
	"strings"
	"syscall"
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
		b, err := os.ReadFile("/proc/" + ent.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the command name in parentheses: state ppid pgrp session ...
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 4 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if sid, err := strconv.Atoi(f[3]); err == nil && sids[sid] {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
	}
	return n
}
