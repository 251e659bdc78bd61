package modelserver

import (
	"encoding/json"
	"net/http"
)

// openaiResponses answers POST /v1/responses (Codex), streaming.
func (s *Server) openaiResponses(w http.ResponseWriter, body []byte, path string) {
	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
		return
	}
	req := Request{API: "openai-responses", Path: path, Stream: in.Stream, Body: body}
	for _, t := range in.Tools {
		if t.Name != "" {
			req.Tools = append(req.Tools, t.Name)
		}
	}
	// The last user message, unless tool output follows it.
	for i := len(in.Input) - 1; i >= 0; i-- {
		it := in.Input[i]
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			req.ToolResult = true
			break
		}
		if it.Role == "user" {
			req.LastUser = responsesText(it.Content)
			break
		}
	}
	rep, ok := s.answer(w, req)
	if !ok {
		return
	}
	id := s.nextID("resp")
	var item map[string]any
	if rep.ToolName != "" {
		item = map[string]any{"type": "function_call", "id": s.nextID("fc"), "call_id": s.nextID("call"),
			"name": rep.ToolName, "arguments": string(rep.ToolArgs), "status": "completed"}
	} else {
		item = map[string]any{"type": "message", "id": s.nextID("msg"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	resp := map[string]any{"id": id, "object": "response", "model": in.Model, "status": "in_progress", "output": []any{}}
	e := newSSE(w)
	e.event("response.created", map[string]any{"type": "response.created", "response": resp})
	e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if rep.ToolName == "" {
		e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": rep.Text})
	}
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := map[string]any{"id": id, "object": "response", "model": in.Model, "status": "completed", "output": []any{item}, "usage": usage}
	e.event("response.completed", map[string]any{"type": "response.completed", "response": done})
}

// responsesText reads the text of a Responses input message.
func responsesText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	text := ""
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "text" {
			text = p.Text
		}
	}
	return text
}
