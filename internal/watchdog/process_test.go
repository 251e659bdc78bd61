package watchdog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for agentgrid: run as
// `<test binary> __watchdog`, it is the Go watchdog, which the shell
// watchdog hands its groups to at EOF and which runs where there is no shell.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Command {
		Run(os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// watchdogs runs a test once with the shell watchdog and once with the Go
// one, as where /bin/sh cannot be started.
func watchdogs(t *testing.T, test func(t *testing.T, d *Process)) {
	for _, tc := range []struct{ name, shell, want string }{
		{"shell", shell, Name},
		{"go", "/nonexistent/sh", Command},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startIn(t, tc.shell)
			// Start returns once the exec began; the kernel sets up the new
			// arguments a moment later.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				args := cmdline(d.Pid())
				if contains(args, tc.want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the watchdog runs %q, want an argument %q", args, tc.want)
				}
			}
			test(t, d)
		})
	}
}

// startIn starts a watchdog whose script runs in sh, with the test binary
// standing in for agentgrid; it is hung up when the test ends.
func startIn(t *testing.T, sh string) *Process {
	t.Helper()
	saved := shell
	shell = sh
	d, err := Start(os.Args[0], nil)
	shell = saved
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func cmdline(pid int) []string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// waitGone waits until nothing is left of a process group.
func waitGone(t *testing.T, pgid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(-pgid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s is alive 10 s after the session hung up", what)
		}
	}
}

// waitMembers waits until a process group has n live members.
func waitMembers(t *testing.T, pgid, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			s := string(b)
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
				got++
			}
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %d has %d live members after 10 s, want %d", pgid, got, n)
		}
	}
}

// waitExit waits for the watchdog to end (and be reaped by Start's
// goroutine).
func waitExit(t *testing.T, d *Process) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(d.Pid(), 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watchdog did not end 10 s after the session hung up")
		}
	}
}

// TestWatchdogKillsWatchedGroupsWhenTheSessionHangsUp: groups the session
// watched die when the pipe closes, except one it was told to forget, and
// the watchdog ends.
func TestWatchdogKillsWatchedGroupsWhenTheSessionHangsUp(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	watchdogs(t, func(t *testing.T, d *Process) {
		a, b, c := startGroup(t), startGroup(t), startGroup(t)
		go func() { _ = a.Wait() }() // reap the leaders as they die
		go func() { _ = c.Wait() }()
		for _, g := range []int{a.Process.Pid, b.Process.Pid, c.Process.Pid} {
			d.Watch(g)
		}
		d.mu.Lock()
		d.send('-', b.Process.Pid) // as if b had emptied; its id is someone else's now
		d.send('+', 1)             // never init
		d.mu.Unlock()
		if _, err := d.w.WriteString("+\n+x12\n-\n" + "+" + strconv.Itoa(os.Getpid()) + "x\n"); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		waitGone(t, a.Process.Pid, "the first watched group")
		waitGone(t, c.Process.Pid, "the third watched group")
		waitExit(t, d)
		if err := syscall.Kill(-b.Process.Pid, 0); err != nil {
			t.Errorf("the forgotten group was signalled: %v", err)
		}
	})
}

// TestExitedGroupIsForgottenOnceEmpty: a group whose leader exited while a
// member lives on is kept until that member ends, then forgotten.
func TestExitedGroupIsForgottenOnceEmpty(t *testing.T) {
	watchdogs(t, func(t *testing.T, d *Process) {
		g := startGroup(t)
		waitMembers(t, g.Process.Pid, 2)
		d.Watch(g.Process.Pid)
		// The leader (the shell) ends; its sleep stays in the group.
		if err := syscall.Kill(g.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = g.Wait()
		d.Exited(g.Process.Pid)
		d.mu.Lock()
		kept := d.draining[g.Process.Pid]
		d.mu.Unlock()
		if !kept {
			t.Fatal("a group with a live member was forgotten at once")
		}
		if err := syscall.Kill(-g.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitGone(t, g.Process.Pid, "the straggler")
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			d.mu.Lock()
			left, polling := len(d.draining), d.poll != nil
			d.mu.Unlock()
			if left == 0 && !polling {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("10 s after the group emptied, %d groups are still polled", left)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		waitExit(t, d)
	})
}

// TestShellWatchdogRunsNothingFromTheEnvironment: a shell that reads a
// startup file named in the environment (bash reads $BASH_ENV even when not
// interactive) does not read it in the watchdog.
func TestShellWatchdogRunsNothingFromTheEnvironment(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	startup := filepath.Join(dir, "startup.sh")
	if err := os.WriteFile(startup, []byte("echo ran > "+marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BASH_ENV", startup)
	t.Setenv("ENV", startup)
	d := startIn(t, bash)
	g := startGroup(t)
	go func() { _ = g.Wait() }()
	d.Watch(g.Process.Pid)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, g.Process.Pid, "the watched group")
	waitExit(t, d)
	if _, err := os.Stat(marker); err == nil {
		t.Error("the watchdog's shell ran the startup file named in BASH_ENV or ENV")
	}
}

// TestKilledWatchdogIsReplaced: a watchdog killed while the session runs is
// replaced at once, and the new one knows the groups watched before.
func TestKilledWatchdogIsReplaced(t *testing.T) {
	watchdogs(t, func(t *testing.T, d *Process) {
		g := startGroup(t)
		go func() { _ = g.Wait() }()
		d.Watch(g.Process.Pid)
		old := d.Pid()
		if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); d.Pid() == old; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no new watchdog 10 s after the first was killed")
			}
		}
		if err := syscall.Kill(-g.Process.Pid, 0); err != nil {
			t.Fatalf("the watched group died with the watchdog: %v", err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		waitGone(t, g.Process.Pid, "the group watched before the replacement")
		waitExit(t, d)
	})
}

// TestWatchdogThatKeepsEndingIsGivenUp: a watchdog that cannot run (here a
// "shell" that exits at once) is replaced a few times, then the session
// goes on without one instead of starting processes for ever.
func TestWatchdogThatKeepsEndingIsGivenUp(t *testing.T) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("needs true")
	}
	d := startIn(t, truePath)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d.mu.Lock()
		broken, restarts := d.broken, len(d.restarts)
		d.mu.Unlock()
		if broken {
			if restarts != maxRestarts {
				t.Errorf("given up after %d replacements, want %d", restarts, maxRestarts)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still replacing the watchdog after 10 s (%d replacements)", restarts)
		}
	}
	d.Watch(12345) // nothing to write to, and no wait
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
