package rawio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// socketPair is a connected pair of Unix sockets in Go's poller.
func socketPair(t *testing.T) (a, b *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socket")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

func rawConn(t *testing.T, c *net.UnixConn) syscall.RawConn {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// TestReaderWaitsForInput: a read that finds nothing waits in Go's poller
// until input comes, honours a read deadline, and reads io.EOF once the
// peer hangs up.
func TestReaderWaitsForInput(t *testing.T) {
	a, b := socketPair(t)
	r := Reader{RC: rawConn(t, a)}
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, err := r.Read(buf)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	if _, err := b.Write([]byte("key")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "key" {
			t.Fatalf("read %q, want %q", s, "key")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not return within 10 s of the input")
	}

	_ = a.SetReadDeadline(time.Now())
	if _, err := r.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	_ = a.SetReadDeadline(time.Time{})

	_ = b.Close()
	if _, err := r.Read(make([]byte, 8)); !errors.Is(err, io.EOF) {
		t.Fatalf("a read after the peer hung up: %v, want io.EOF", err)
	}
}

// TestWriterWaitsForRoom: a write larger than the socket takes waits in
// Go's poller for the reader and arrives whole and in order.
func TestWriterWaitsForRoom(t *testing.T) {
	a, b := socketPair(t)
	w := Writer{RC: rawConn(t, a)}
	want := make([]byte, 8<<20)
	for i := range want {
		want[i] = byte(i % 251)
	}
	errs := make(chan error, 1)
	go func() {
		n, err := w.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		errs <- err
		_ = a.CloseWrite()
	}()
	got, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes that differ from the %d written", len(got), len(want))
	}
}
