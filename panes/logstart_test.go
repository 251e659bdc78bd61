package panes_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/panes"
)

// TestFirstOutputDoesNotWaitForTheLog: the output log is created a
// moment after the start, in the background, so a new agent's output reaches
// the screen however long the log takes to open, its first output and
// what follows; the log still gets every byte once it is open. The log
// here is a FIFO, whose open blocks until a reader comes: the pane must
// start and show its output meanwhile.
func TestFirstOutputDoesNotWaitForTheLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "a1.log")
	if err := syscall.Mkfifo(logPath, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	// Opening the FIFO for reading is what lets the log open; the test
	// does it last, and on its way out in any case.
	var fifo *os.File
	openReader := func() {
		if fifo == nil {
			f, err := os.OpenFile(logPath, os.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fifo = f
		}
	}
	t.Cleanup(func() {
		openReader()
		_ = fifo.Close()
	})
	started := make(chan *panes.Pane, 1)
	go func() {
		p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "printf '%s-%s\\n' first out; read x; echo got-$x"), panes.Options{LogPath: logPath})
		if err != nil {
			t.Error(err)
		}
		started <- p
	}()
	var p *panes.Pane
	select {
	case p = <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the pane did not start while its output log was still opening")
	}
	if p == nil {
		return
	}
	defer p.Kill(100 * time.Millisecond)
	waitFor(t, 10*time.Second, "the first output on the screen while the log is still opening", func() bool {
		return strings.Contains(p.Term().Text(), "first-out")
	})
	if _, err := p.Write([]byte("y\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the answer on the screen while the log is still opening", func() bool {
		return strings.Contains(p.Term().Text(), "got-y")
	})
	openReader()
	waitDone(t, p, 10*time.Second)
	b, err := io.ReadAll(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); !strings.Contains(got, "first-out") || !strings.Contains(got, "got-y") {
		t.Errorf("the log got %q, want the first output and the answer", got)
	}
}

// TestFloodTailReachesTheLog: a flood's reads are written to the log a
// buffer at a time, and its last output still reaches the file soon while
// the process runs on printing nothing (a timer flushes it).
func TestFloodTailReachesTheLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "a1.log")
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "seq 1 300000; exec sleep 100"), panes.Options{LogPath: logPath})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill(100 * time.Millisecond)
	waitFor(t, 60*time.Second, "the last line on the screen", func() bool { return strings.Contains(p.Term().Text(), "300000") })
	waitFor(t, 10*time.Second, "the last line in the log", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.HasSuffix(string(b), "299999\r\n300000\r\n")
	})
}

// TestSilentPaneStillGetsItsLog: a child that prints nothing still gets
// its log file while it runs (the log opens a moment after the start),
// and one that ended without a word has it too.
func TestSilentPaneStillGetsItsLog(t *testing.T) {
	dir := t.TempDir()
	running := filepath.Join(dir, "a1.log")
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "exec sleep 100"), panes.Options{LogPath: running})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill(100 * time.Millisecond)
	waitFor(t, 10*time.Second, "the silent pane's log file", func() bool {
		_, err := os.Stat(running)
		return err == nil
	})
	ended := filepath.Join(dir, "a2.log")
	q, err := panes.Start(panes.PTYSpawner{}, spec("true"), panes.Options{LogPath: ended})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, q, 10*time.Second)
	if _, err := os.Stat(ended); err != nil {
		t.Errorf("a pane that ended without output has no log: %v", err)
	}
}
