//go:build linux

package ui

import (
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestOpenKeysLeavesTheShellsTerminalBlocking: the client reads keys from
// a description of the terminal of its own, non-blocking and waited on in
// Go's poller, while the description it was given (the shell's) stays
// blocking; a key typed is read, and a cancel ends a waiting read.
func TestOpenKeysLeavesTheShellsTerminalBlocking(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	fd := tty.Fd() // the shell's description, in blocking mode from here on
	keys, err := openKeys(tty)
	if err != nil {
		t.Fatal(err)
	}
	defer keys.Close()
	pk, ok := keys.(polledKeys)
	if !ok {
		t.Fatalf("the keys are read by a %T, want the terminal opened again", keys)
	}
	if fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Fatalf("the shell's description: flags %#x, err %v; want it blocking", fl, err)
	}
	own, err := pk.f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	_ = own.Control(func(ofd uintptr) {
		if fl, err := unix.FcntlInt(ofd, unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK == 0 {
			t.Errorf("the client's own description: flags %#x, err %v; want it non-blocking", fl, err)
		}
	})

	// The terminal is in cooked mode here: a line is a key press's worth.
	if _, err := ptm.Write([]byte("k\n")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 8)
	if n, err := keys.Read(b); err != nil || string(b[:n]) != "k\n" {
		t.Fatalf("read %q, %v; want the key typed", b[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := keys.Read(b)
		done <- err
	}()
	if !keys.Cancel() {
		t.Fatal("the cancel was refused")
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled read returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled read still waits 10 s later")
	}
}
