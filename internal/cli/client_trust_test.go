package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// 8.5: whatever the socket sends, the client commands print no escape
// sequence or control character but the SGR colours of capture -e.
func TestCLIOutputIsSanitised(t *testing.T) {
	b, sock := startCLIServer(t)
	const evil = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1bPtmux;\x1b\x1b]0;t\x07\x1b\\\u009b2J\u202e"
	id := b.add("title"+evil, -1)
	b.mu.Lock()
	b.agents[0].State = agentstate.State("running" + evil)
	b.agents[0].LogPath = "/log" + evil
	b.agents[0].QueueReason = "why" + evil
	b.mu.Unlock()
	b.captureText = "line one" + evil + "\n\x1b[31mred\x1b[m\x1b[2J\x1b[?1049h"

	for _, args := range [][]string{
		{"list"}, {"list", "--json"}, {"explain", id}, {"explain", id, "--json"},
		{"capture", id}, {"capture", "-e", id}, {"wait", id, "--timeout", "0.05"}, {"wait", id, "--timeout", "0.05", "--json"},
	} {
		r := runCLI(t, append([]string{"--socket", sock}, args...)...)
		out := r.stdout + r.stderr
		if strings.Contains(strings.Join(args, " "), "-e") {
			if !strings.Contains(out, "\x1b[31mred\x1b[m") {
				t.Errorf("%v: colours lost: %q", args, out)
			}
			out = strings.ReplaceAll(strings.ReplaceAll(out, "\x1b[31m", ""), "\x1b[m", "")
		}
		if i := strings.IndexFunc(out, func(r rune) bool {
			return r == 0x1b || r == 0x07 || (r >= 0x80 && r <= 0x9f) || r == '\u202e'
		}); i >= 0 {
			t.Errorf("%v printed a control character: %q", args, out[max(0, i-20):min(len(out), i+20)])
		}
	}
}

// 8.4: a refused client says why, with the session's name.
func TestCLITooManyConnections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = fmt.Fprintf(c, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":"too many connections to this session (512 busy)"}}`+"\n", control.CodeTooManyConnections)
			_ = c.(*net.UnixConn).CloseWrite()
			time.AfterFunc(time.Second, func() { _ = c.Close() })
		}
	}()
	r := runCLI(t, "--socket", path, "list")
	r.want(t, 1)
	if want := "agentgrid: too many connections to session busy; close some of its clients (agentgrid watch, agentgrid wait) and retry\n"; r.stderr != want {
		t.Fatalf("stderr = %q, want %q", r.stderr, want)
	}
}

// 8.8: --timeout has the session's range; huge or infinite values are a
// usage error, not an overflow.
func TestParseTimeoutBounds(t *testing.T) {
	for _, s := range []string{"1e300", "inf", "+Inf", "721h", "2592001", "NaN", "-1"} {
		if d, err := parseTimeout(s); err == nil {
			t.Errorf("parseTimeout(%q) = %v, want an error", s, d)
		}
	}
	for s, want := range map[string]time.Duration{"90": 90 * time.Second, "720h": 720 * time.Hour, "0.05": 50 * time.Millisecond} {
		if d, err := parseTimeout(s); err != nil || d != want {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v", s, d, err, want)
		}
	}
}

// 8.5: watch without a name looks in the socket directory; when that
// directory is not safe it says so instead of "no session is running".
func TestWatchTargetRefusesUntrustedDirectory(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	dir := filepath.Join(runtime, "agentgrid")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "fake.sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, _, err = attachTarget("", "agentgrid watch")
	if !errors.Is(err, control.ErrUntrustedSocket) || !strings.Contains(err.Error(), "writable by other users") {
		t.Fatalf("attachTarget with a planted directory: %v", err)
	}
}
