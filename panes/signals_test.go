package panes

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildFindsSIGHUPAtItsDefault: agentgrid started with SIGHUP ignored
// (nohup, a service manager) still gives its children SIGHUP's default
// action, so closing an agent ends it at the first signal instead of after
// the kill grace. The test binary re-runs itself under `trap "" HUP`; in
// that process a pane's `sleep` must die of the SIGHUP it is sent.
func TestChildFindsSIGHUPAtItsDefault(t *testing.T) {
	if os.Getenv("AGENTGRID_TEST_IGNORED_HUP") == "1" {
		ignoredHupChild()
		return
	}
	if testing.Short() {
		t.Skip("re-runs the test binary")
	}
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" -test.run='^TestChildFindsSIGHUPAtItsDefault$' -test.count=1`, os.Args[0])
	cmd.Env = append(os.Environ(), "AGENTGRID_TEST_IGNORED_HUP=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "child ended by signal 1") {
		t.Fatalf("a child of a process that inherited SIGHUP as ignored: err %v\n%s", err, out)
	}
}

// ignoredHupChild runs in the re-executed test binary: it checks that it
// really inherited SIGHUP as ignored, starts sleep in a PTY, sends SIGHUP,
// and reports how the child ended.
func ignoredHupChild() {
	if !signal.Ignored(syscall.SIGHUP) {
		fmt.Println("the re-run test binary did not inherit SIGHUP as ignored")
		return
	}
	p, err := PTYSpawner{}.Start(StartSpec{Argv: []string{"sleep", "100"}})
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer p.Close()
	_ = p.Signal(syscall.SIGHUP)
	done := make(chan int, 1)
	go func() { code, _ := p.Wait(); done <- code }()
	select {
	case code := <-done:
		if code == 128+int(syscall.SIGHUP) {
			fmt.Println("child ended by signal 1")
		} else {
			fmt.Println("child ended with code", code)
		}
	case <-time.After(10 * time.Second):
		_ = p.Signal(syscall.SIGKILL)
		fmt.Println("child ignored SIGHUP for 10s")
	}
}
