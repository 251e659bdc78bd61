package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSocketPath(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got, want := SocketPath("s1"), "/run/user/1000/agentgrid/s1.sock"; got != want {
		t.Errorf("SocketPath with XDG_RUNTIME_DIR = %q, want %q", got, want)
	}
	if got, want := SocketPath("a/b c"), "/run/user/1000/agentgrid/a_b_c.sock"; got != want {
		t.Errorf("SocketPath sanitises to %q, want %q", got, want)
	}
	if got, want := SocketPath(".."), "/run/user/1000/agentgrid/__.sock"; got != want {
		t.Errorf("SocketPath(..) = %q, want %q", got, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	want := fmt.Sprintf("/tmp/agentgrid-%d/s1.sock", os.Getuid())
	if got := SocketPath("s1"); got != want {
		t.Errorf("SocketPath without XDG_RUNTIME_DIR = %q, want %q", got, want)
	}
	// A relative XDG_RUNTIME_DIR is ignored: the socket must not depend on
	// the working directory.
	t.Setenv("XDG_RUNTIME_DIR", "run")
	if got := SocketPath("s1"); got != want {
		t.Errorf("SocketPath with a relative XDG_RUNTIME_DIR = %q, want %q", got, want)
	}
}

func TestServerPermissionsAndCleanup(t *testing.T) {
	fb := newSockBackend()
	dir := filepath.Join(t.TempDir(), "rt")
	path := filepath.Join(dir, "p.sock")
	s, err := StartServer(path, fb, ServerOptions{Session: "p"})
	if err != nil {
		t.Fatal(err)
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode = %v, want 0700", di.Mode().Perm())
	}
	si, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if si.Mode().Type() != os.ModeSocket || si.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, want a socket with 0600", si.Mode())
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file still there after Close: %v", err)
	}
}

func TestServerTightensLooseDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "loose")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := StartServer(filepath.Join(dir, "x.sock"), newSockBackend(), ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	di, _ := os.Stat(dir)
	if di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode = %v, want 0700", di.Mode().Perm())
	}
}

func TestServerStaleAndLiveSockets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rt")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.sock")

	// A socket file nobody answers on: a session that died.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	_ = ln.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	s, err := StartServer(path, newSockBackend(), ServerOptions{})
	if err != nil {
		t.Fatalf("StartServer over a stale socket: %v", err)
	}
	defer s.Close()

	// A live session's socket is left alone.
	_, err = StartServer(path, newSockBackend(), ServerOptions{})
	if err == nil || !strings.Contains(err.Error(), "another agentgrid session is running") {
		t.Fatalf("StartServer over a live socket: err = %v, want 'another agentgrid session is running'", err)
	}
	c, err := Dial(path)
	if err != nil {
		t.Fatalf("the first session stopped answering: %v", err)
	}
	defer c.Close()
	if _, err := c.SessionInfo(context.Background()); err != nil {
		t.Fatalf("session.info on the first session: %v", err)
	}

	// A regular file is never removed.
	file := filepath.Join(dir, "f.sock")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := StartServer(file, newSockBackend(), ServerOptions{}); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("StartServer over a regular file: err = %v, want 'not a socket'", err)
	}
}

func TestServerRejectsLongPath(t *testing.T) {
	path := "/tmp/" + strings.Repeat("x", 120) + "/s.sock"
	if _, err := StartServer(path, newSockBackend(), ServerOptions{}); err == nil || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Fatalf("err = %v, want a hint about a shorter directory", err)
	}
}

func TestCheckPeerUID(t *testing.T) {
	tests := []struct {
		peer, owner int
		ok          bool
	}{
		{1000, 1000, true},
		{0, 1000, true}, // root may reach the session anyway
		{1001, 1000, false},
		{1000, 0, false},
	}
	for _, tt := range tests {
		err := checkPeerUID(tt.peer, tt.owner)
		if (err == nil) != tt.ok {
			t.Errorf("checkPeerUID(%d, %d) = %v, want ok=%v", tt.peer, tt.owner, err, tt.ok)
		}
	}
}

func TestPeerUIDOfRealConnection(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "u.sock"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("unix", filepath.Join(dir, "u.sock"))
		if err == nil {
			defer c.Close()
			_, _ = io.Copy(io.Discard, c)
		}
	}()
	_ = ln.SetDeadline(time.Now().Add(5 * time.Second))
	c, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uid, err := peerUID(c)
	if err != nil {
		t.Fatal(err)
	}
	if uid != os.Getuid() {
		t.Errorf("peerUID = %d, want %d", uid, os.Getuid())
	}
}
