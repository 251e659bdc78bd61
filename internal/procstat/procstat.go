// Package procstat reads the few fields agentgrid needs from a process's
// /proc/PID/stat (Linux): its state, parent, process group and session.
// Where there is no /proc it finds nothing.
package procstat

import (
	"os"
	"strconv"
	"strings"
)

// Stat is a process's entry in /proc/PID/stat.
type Stat struct {
	State   byte // 'R', 'S', 'Z' (a zombie), ...
	PPID    int
	PGRP    int
	Session int
}

// Zombie reports whether the process has ended and waits to be reaped.
func (s Stat) Zombie() bool { return s.State == 'Z' || s.State == 'X' }

// Read reads pid's entry; ok is false when there is none to read (no such
// process, or no /proc) or it does not parse.
func Read(pid int) (Stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	// The command name is in parentheses and may hold anything; the fields
	// after the last ')' are "state ppid pgrp session ...".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return Stat{}, false
	}
	st := Stat{State: f[0][0]}
	for j, v := range []*int{&st.PPID, &st.PGRP, &st.Session} {
		n, err := strconv.Atoi(f[j+1])
		if err != nil {
			return Stat{}, false
		}
		*v = n
	}
	return st, true
}
