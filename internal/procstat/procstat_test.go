package procstat

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestReadSelfAndAZombie reads this process and a child before and after
// it ends (unreaped), including a command name that holds ") " itself.
func TestReadSelfAndAZombie(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	me, ok := Read(os.Getpid())
	if !ok || me.PPID != os.Getppid() || me.PGRP != syscall.Getpgrp() || me.Zombie() {
		t.Fatalf("Read(self) = %+v, %v; want parent %d, group %d, alive", me, ok, os.Getppid(), syscall.Getpgrp())
	}
	// A command name with a ") " in it, as a program may choose.
	dir := t.TempDir()
	name := dir + "/odd) S 1 2 3 name"
	if err := os.Symlink("/bin/sh", name); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, "-c", "read x")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kid, ok := Read(cmd.Process.Pid)
	if !ok || kid.PPID != os.Getpid() || kid.Zombie() {
		t.Fatalf("Read(child) = %+v, %v; want parent %d, alive", kid, ok, os.Getpid())
	}
	_ = stdin.Close()
	// It ends; until reaped it is a zombie.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		z, ok := Read(cmd.Process.Pid)
		if ok && z.Zombie() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ended child reads as %+v, %v; want a zombie", z, ok)
		}
	}
	_ = cmd.Wait()
	if _, ok := Read(cmd.Process.Pid); ok {
		t.Error("a reaped child still reads")
	}
}
