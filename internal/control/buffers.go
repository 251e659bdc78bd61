package control

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// MethodSessionPaste returns a paste buffer: the text the user copied in
// the session (agentgrid paste).
const MethodSessionPaste = "session.paste"

// MaxBuffers is how many copies a session keeps, newest first.
const MaxBuffers = 20

// maxBufferBytes caps one buffer, well under the socket's message limit.
const maxBufferBytes = 256 << 10

// Buffers are the session's paste buffers: what the user copied, newest
// first, at most MaxBuffers. The UI adds to them, the socket reads them.
// Safe for concurrent use.
type Buffers struct {
	mu    sync.Mutex
	items []string
}

// NewBuffers returns an empty set of buffers.
func NewBuffers() *Buffers { return &Buffers{} }

// Add keeps text as the newest buffer (cut to maxBufferBytes); an empty
// text is not kept.
func (b *Buffers) Add(text string) {
	if text == "" {
		return
	}
	if len(text) > maxBufferBytes {
		text = text[:maxBufferBytes]
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.items = append([]string{text}, b.items...)
	if len(b.items) > MaxBuffers {
		b.items = b.items[:MaxBuffers]
	}
}

// Get returns buffer i (0: the newest).
func (b *Buffers) Get(i int) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i < 0 || i >= len(b.items) {
		return "", false
	}
	return b.items[i], true
}

// Len is how many buffers there are.
func (b *Buffers) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.items)
}

// PasteParams are the parameters of session.paste: which buffer, 0 for
// the newest.
type PasteParams struct {
	Index int `json:"index,omitempty"`
}

// PasteResult is session.paste's answer.
type PasteResult struct {
	Text string `json:"text"`
	// Count is how many buffers the session holds.
	Count int `json:"count"`
}

func init() {
	handlers[MethodSessionPaste] = handlePaste
	methodTools[MethodSessionPaste] = ToolRead
}

func handlePaste(ctx context.Context, s *Server, params json.RawMessage) (any, *RPCError) {
	var p PasteParams
	if e := decodeParams(params, &p); e != nil {
		return nil, e
	}
	// A copy may come from any pane: reading it needs what reading the
	// whole screen needs.
	if e := may(ctx, GrantRead, MainID); e != nil {
		return nil, e
	}
	b := s.o.Buffers
	if b == nil || b.Len() == 0 {
		return nil, &RPCError{Code: CodeServerError, Message: "nothing was copied in this session yet: select text in scrollback mode (prefix [, v, y) or drag with the mouse"}
	}
	text, ok := b.Get(p.Index)
	if !ok {
		return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("no buffer %d: the session holds %d (0 is the newest)", p.Index, b.Len())}
	}
	return PasteResult{Text: text, Count: b.Len()}, nil
}

// Paste returns the session's paste buffer index (0: the newest).
func (c *Client) Paste(ctx context.Context, index int) (PasteResult, error) {
	var r PasteResult
	err := c.Call(ctx, MethodSessionPaste, PasteParams{Index: index}, &r)
	return r, err
}
