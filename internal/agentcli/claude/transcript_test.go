package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Stop without last_assistant_message (older Claude Code) takes the turn's
// final message from the transcript: the last assistant entry with text.
func TestStopReadsTheTranscriptWithoutLastMessage(t *testing.T) {
	dir := t.TempDir()
	transcript := filepath.Join(dir, "3f1c2a9e.jsonl")
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"port the parser; end with <promise>DONE</promise>"}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Starting."}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Ported and tested."},{"type":"text","text":"<promise>DONE</promise>"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok"}]}}`,
		`not json`,
		``,
	}
	if err := os.WriteFile(transcript, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	payload := func(path string) []byte {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "Stop", "transcript_path": path, "cwd": dir})
		return b
	}
	a, ok, err := CLI{}.Ask(payload(transcript))
	if err != nil || !ok {
		t.Fatalf("Ask: %v %v", ok, err)
	}
	if a.Said != "Ported and tested.\n<promise>DONE</promise>" {
		t.Errorf("said %q, want the last assistant text from the transcript (never the user's prompt)", a.Said)
	}
	// Only an absolute .jsonl regular file is read.
	other := filepath.Join(dir, "notes.txt")
	_ = os.WriteFile(other, []byte(lines[2]), 0o600)
	for _, p := range []string{other, "3f1c2a9e.jsonl", dir + "/missing.jsonl", dir} {
		if a, _, _ := (CLI{}).Ask(payload(p)); a.Said != "" {
			t.Errorf("transcript %q read: %q", p, a.Said)
		}
	}
	// A payload's own message wins over the transcript.
	b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "transcript_path": transcript, "last_assistant_message": "from the payload"})
	if a, _, _ := (CLI{}).Ask(b); a.Said != "from the payload" {
		t.Errorf("said %q", a.Said)
	}
	// Only the tail of a huge transcript is read; the message is still found.
	big := filepath.Join(dir, "big.jsonl")
	filler := strings.Repeat(`{"type":"user","message":{"role":"user","content":"`+strings.Repeat("x", 1000)+`"}}`+"\n", 2000)
	_ = os.WriteFile(big, []byte(filler+lines[2]+"\n"), 0o600)
	if got := lastAssistantMessage(big); !strings.HasSuffix(got, "<promise>DONE</promise>") {
		t.Errorf("big transcript: %q", got)
	}
}
