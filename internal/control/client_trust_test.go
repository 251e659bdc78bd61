package control

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeListener is a socket that records whether anyone connected and what
// was sent: a stand-in for another user's fake session.
type fakeListener struct {
	ln       *net.UnixListener
	accepted chan []byte // what one connection sent before it closed
}

func listenFake(t *testing.T, path string) *fakeListener {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeListener{ln: ln, accepted: make(chan []byte, 4)}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			got, _ := io.ReadAll(c)
			_ = c.Close()
			f.accepted <- got
		}
	}()
	return f
}

// 8.5: a socket in a directory that others may write to, or that belongs to
// someone else, is refused before connecting.
func TestClientRefusesUntrustedSocketDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.sock")
	fake := listenFake(t, path)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Dial(path)
	if err == nil || !strings.Contains(err.Error(), "writable by other users (mode 0777)") {
		t.Fatalf("Dial in a 0777 directory: %v", err)
	}
	if err := os.Chmod(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(path); err == nil || !strings.Contains(err.Error(), "writable by other users (mode 0770)") {
		t.Fatalf("Dial in a group-writable directory: %v", err)
	}

	// A directory of another user. As root, make one; otherwise "/" is one.
	other := filepath.Join("/", "x.sock")
	if os.Getuid() == 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		other = path
	}
	if _, err := Dial(other); err == nil || !strings.Contains(err.Error(), "belongs to uid") || !strings.Contains(err.Error(), "not to you") {
		t.Fatalf("Dial in another user's directory: %v", err)
	}

	// A symlink in place of the directory.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(filepath.Join(link, "s.sock")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Dial through a symlinked directory: %v", err)
	}
	select {
	case got := <-fake.accepted:
		t.Fatalf("the fake server got a connection (%q)", got)
	default:
	}
}

// 8.5: a server run by another user gets nothing, not even the first
// request. The peer's uid comes from the kernel; the test replaces the
// lookup to play the other user.
func TestClientRefusesServerOfAnotherUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	fake := listenFake(t, path)
	old := serverUID
	serverUID = func(*net.UnixConn) (int, error) { return os.Getuid() + 4242, nil }
	t.Cleanup(func() { serverUID = old })

	_, err := Dial(path)
	if err == nil || !strings.Contains(err.Error(), "not by you") || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("Dial to another user's server: %v", err)
	}
	if got := sockRecv(t, fake.accepted, "the fake server's connection to end"); len(got) != 0 {
		t.Fatalf("the fake server received %q", got)
	}

	serverUID = func(*net.UnixConn) (int, error) { return -1, errors.New("no credentials") }
	if _, err := Dial(path); err == nil || !strings.Contains(err.Error(), "check who serves") {
		t.Fatalf("Dial when the peer cannot be identified: %v", err)
	}
	if got := sockRecv(t, fake.accepted, "the fake server's connection to end"); len(got) != 0 {
		t.Fatalf("the fake server received %q", got)
	}

	// Root's server is accepted, as the server accepts root's clients.
	serverUID = func(*net.UnixConn) (int, error) { return 0, nil }
	c, err := Dial(path)
	if err != nil {
		t.Fatalf("Dial to root's server: %v", err)
	}
	_ = c.Close()
}

// The server's error messages are sanitised before the client returns them:
// they end up on the user's terminal.
func TestClientSanitisesServerErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 4096)
		_, _ = c.Read(buf)
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad \u001b]52;c;ZWNobyBwd25lZA==\u0007 \u009b2J thing"}}` + "\n"))
	}()
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.List(ctx)
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07\u009b") || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("error from a hostile server: %q", err)
	}
}
