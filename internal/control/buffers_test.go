package control

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The session keeps the last MaxBuffers copies, newest first, each cut to
// maxBufferBytes; session.paste hands them out by index and says when there
// is nothing or no such buffer.
func TestPasteBuffers(t *testing.T) {
	b := NewBuffers()
	s, err := StartServer(filepath.Join(t.TempDir(), "p.sock"), newSockBackend(), ServerOptions{Session: "test", Buffers: b})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := Dial(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Paste(ctx, 0); err == nil || !strings.Contains(err.Error(), "nothing was copied") {
		t.Errorf("paste with no copies: %v", err)
	}
	for i := range MaxBuffers + 5 {
		b.Add(strings.Repeat("x", i) + "copy")
	}
	b.Add("")
	b.Add(strings.Repeat("y", maxBufferBytes+10))
	r, err := c.Paste(ctx, 0)
	if err != nil || len(r.Text) != maxBufferBytes || r.Count != MaxBuffers {
		t.Errorf("paste 0: %d bytes, count %d, %v", len(r.Text), r.Count, err)
	}
	if r, err := c.Paste(ctx, 1); err != nil || r.Text != strings.Repeat("x", MaxBuffers+4)+"copy" {
		t.Errorf("paste 1 = %q, %v", r.Text, err)
	}
	if _, err := c.Paste(ctx, MaxBuffers); err == nil || ErrorCode(err) != CodeInvalidParams {
		t.Errorf("paste past the last buffer: %v", err)
	}
}
