package panes_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/panes"
)

// TestLogCapKeepsNewestOutput floods a pane with about 2.6 MB of numbered
// lines under a 256 KiB cap: at most twice the cap is on disk, and the two
// files together are the newest output, byte for byte.
func TestLogCapKeepsNewestOutput(t *testing.T) {
	const max = 256 << 10
	const lines = 400000
	logPath := filepath.Join(t.TempDir(), "a1.log")
	// A log left by an earlier session of the same name counts toward the cap.
	if err := os.WriteFile(logPath, []byte(strings.Repeat("old\n", max/4)), 0o600); err != nil {
		t.Fatal(err)
	}
	var logErr error
	p, err := panes.Start(panes.PTYSpawner{}, spec("seq", "1", strconv.Itoa(lines)), panes.Options{
		LogPath: logPath, LogMax: max, OnLogError: func(err error) { logErr = err },
	})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 60*time.Second)
	if logErr != nil {
		t.Fatalf("log error: %v", logErr)
	}
	cur, err1 := os.ReadFile(logPath)
	old, err2 := os.ReadFile(logPath + ".1")
	if err1 != nil || err2 != nil {
		t.Fatalf("read the logs: %v, %v", err1, err2)
	}
	if len(cur) > max || len(old) != max {
		t.Errorf("log sizes %d and %d (.1), want at most %d and exactly %d", len(cur), len(old), max, max)
	}
	matches, _ := filepath.Glob(logPath + "*")
	if len(matches) != 2 {
		t.Errorf("log files %v, want the log and one older file", matches)
	}
	var full strings.Builder
	for i := 1; i <= lines; i++ {
		full.WriteString(strconv.Itoa(i) + "\r\n")
	}
	kept := string(old) + string(cur)
	if !strings.HasSuffix(full.String(), kept) {
		n := min(len(kept), 40)
		t.Errorf("the logs are not the newest output: they end with %q and start with %q", kept[len(kept)-n:], kept[:n])
	}
	if !strings.Contains(p.Term().Text(), strconv.Itoa(lines)) {
		t.Errorf("the screen does not show the last line")
	}
}

// TestLogWriteFailureIsReported logs to /dev/full, where every write fails
// with ENOSPC as on a full disk: the failure is reported once, and the pane
// still shows what the child prints afterwards.
func TestLogWriteFailureIsReported(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	var mu sync.Mutex
	var errs []error
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "echo one; read x; echo two-$x; read y"), panes.Options{
		LogPath: "/dev/full", LogMax: 64 << 10,
		OnLogError: func(err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill(0)
	waitFor(t, 10*time.Second, "the log failure to be reported", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(errs) > 0
	})
	if _, err := p.Write([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "output after the failure on the screen", func() bool {
		return strings.Contains(p.Term().Text(), "two-go")
	})
	mu.Lock()
	defer mu.Unlock()
	if len(errs) != 1 || !errors.Is(errs[0], syscall.ENOSPC) || !strings.Contains(errs[0].Error(), "/dev/full") {
		t.Errorf("reported %v; want one ENOSPC error naming the log", errs)
	}
}

// TestLogOpenFailureStillStarts: a log that cannot even be created is
// reported, and the agent runs without it.
func TestLogOpenFailureStillStarts(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var logErr error
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "echo still-runs"), panes.Options{
		LogPath: filepath.Join(notDir, "a1.log"), OnLogError: func(err error) { logErr = err },
	})
	if err != nil {
		t.Fatalf("Start failed because of the log: %v", err)
	}
	waitDone(t, p, 10*time.Second)
	if logErr == nil || !strings.Contains(logErr.Error(), "a1.log") {
		t.Errorf("reported %v, want the log's error", logErr)
	}
	if !strings.Contains(p.Term().Text(), "still-runs") {
		t.Errorf("screen = %q", p.Term().Text())
	}
}
