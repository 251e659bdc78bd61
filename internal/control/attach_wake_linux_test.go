//go:build linux

package control

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitInPoll waits until a thread of this process is blocked in ppoll(2),
// which in these tests is the stream's read: the tests that end such a
// read must end one that is really waiting, not one that has yet to start.
func waitInPoll(t *testing.T) {
	t.Helper()
	want := strconv.Itoa(unix.SYS_PPOLL) + " "
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob("/proc/self/task/*/syscall")
		for _, p := range tasks {
			if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(b), want) {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no thread entered ppoll within 10 s")
}
