package panes

import (
	"os"
	"syscall"
	"testing"
)

// TestReadNowTakesWhatIsThereAndNeverWaits: readNow returns what a
// non-blocking descriptor holds, at most the buffer, and 0 at once when it
// holds nothing, when it is closed, or when the buffer is empty.
func TestReadNowTakesWhatIsThereAndNeverWaits(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := r.Fd() // blocking mode: set it back to non-blocking below
	if err := syscall.SetNonblock(int(fd), true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if n := readNow(fd, buf); n != 0 {
		t.Fatalf("an empty pipe read %d bytes, want 0", n)
	}
	if _, err := w.WriteString("hello"); err != nil {
		t.Fatal(err)
	}
	if n := readNow(fd, buf); n != 4 || string(buf[:n]) != "hell" {
		t.Fatalf("read %q, want the 4 bytes the buffer holds", buf[:n])
	}
	if n := readNow(fd, buf[:0]); n != 0 {
		t.Fatalf("an empty buffer read %d bytes", n)
	}
	if n := readNow(fd, buf); n != 1 || buf[0] != 'o' {
		t.Fatalf("read %q, want the rest %q", buf[:n], "o")
	}
	w.Close()
	if n := readNow(fd, buf); n != 0 {
		t.Fatalf("a closed pipe read %d bytes, want 0", n)
	}
}
