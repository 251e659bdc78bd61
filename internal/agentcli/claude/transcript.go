package claude

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// maxTranscriptTail is how much of the end of a transcript is read to find
// the last assistant message: the message that ends a turn is near the end,
// and a transcript may be many megabytes.
const maxTranscriptTail = 1 << 20

// lastAssistantMessage reads the text of the last assistant entry in a
// Claude Code transcript (JSON lines): the Stop payload of older versions
// has no last_assistant_message, only the transcript's path. It returns ""
// when the path is not an absolute .jsonl regular file, or nothing in its
// tail is an assistant message with text.
func lastAssistantMessage(path string) string {
	if !filepath.IsAbs(path) || filepath.Ext(path) != ".jsonl" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	off := max(st.Size()-maxTranscriptTail, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return ""
	}
	lines := bytes.Split(buf, []byte("\n"))
	if off > 0 && len(lines) > 0 {
		lines = lines[1:] // cut mid-line
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(lines[i], &e) != nil || e.Type != "assistant" {
			continue
		}
		if text := contentText(e.Message.Content); text != "" {
			return text
		}
	}
	return ""
}

// contentText is the text of a message's content: a string, or the text
// blocks of a list of blocks (tool calls and thinking left out).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// todosOf counts the items of a TodoWrite call's list: completed ones are
// done, every other status open. nil when the input has no list.
func todosOf(in map[string]any) *agentstate.Todos {
	list, ok := in["todos"].([]any)
	if !ok {
		return nil
	}
	t := &agentstate.Todos{}
	for _, item := range list {
		m, _ := item.(map[string]any)
		if status, _ := m["status"].(string); status == "completed" {
			t.Done++
		} else {
			t.Open++
		}
	}
	return t
}
