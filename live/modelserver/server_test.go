package modelserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// post sends an Anthropic Messages request and returns the SSE events'
// data objects in order.
func post(t *testing.T, s *Server, body string) []map[string]any {
	t.Helper()
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		events = append(events, ev)
	}
	return events
}

func TestAnthropicScript(t *testing.T) {
	s, err := Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := `"tools":[{"name":"Bash"},{"name":"mcp__agentgrid__spawn_agent"}]`

	// CALL picks the offered tool ending with the name; the user message
	// is found behind a trailing system message.
	evs := post(t, s, `{"model":"m","stream":true,`+tools+`,"messages":[
		{"role":"user","content":[{"type":"text","text":"<reminder>"},{"type":"text","text":"CALL spawn_agent {\"argv\":[\"sh\"]}"}]},
		{"role":"system","content":[{"type":"text","text":"env"}]}]}`)
	var types []string
	for _, ev := range evs {
		types = append(types, ev["type"].(string))
	}
	if got := strings.Join(types, " "); got != "message_start content_block_start content_block_delta content_block_stop message_delta message_stop" {
		t.Fatalf("events: %s", got)
	}
	block := evs[1]["content_block"].(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "mcp__agentgrid__spawn_agent" {
		t.Errorf("block %v", block)
	}
	if d := evs[2]["delta"].(map[string]any); d["partial_json"] != `{"argv":["sh"]}` {
		t.Errorf("delta %v", d)
	}
	if d := evs[4]["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Errorf("stop %v", d)
	}

	// A tool result ends the turn with text.
	evs = post(t, s, `{"model":"m","stream":true,`+tools+`,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"ok"}]}]}`)
	if d := evs[2]["delta"].(map[string]any); !strings.HasPrefix(d["text"].(string), "LIVE-DONE") {
		t.Errorf("after a tool result: %v", d)
	}
	if n := len(s.Requests()); n != 2 || !s.Requests()[1].ToolResult {
		t.Errorf("requests: %+v", s.Requests())
	}

	// FAIL answers with that HTTP status.
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"m",`+tools+`,"messages":[{"role":"user","content":"FAIL 400"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("FAIL 400 answered %d", resp.StatusCode)
	}
}

// TestGeminiScript: the Gemini API answers a CALL with a functionCall of
// the offered tool, streamed as SSE; a JSON side request with the smallest
// value its schema allows; a function response with the closing text.
func TestGeminiScript(t *testing.T) {
	s, err := Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := `"tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"mcp_agentgrid_spawn_agent"}]}]`
	resp, err := http.Post(s.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", "application/json", strings.NewReader(`{`+tools+`,"contents":[
		{"role":"user","parts":[{"text":"<session_context>"}]},
		{"role":"user","parts":[{"text":"CALL spawn_agent {\"argv\":[\"sh\"]}"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, data)
		}
	}
	resp.Body.Close()
	if len(events) != 1 {
		t.Fatalf("events: %q", events)
	}
	var ev struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text         string `json:"text"`
					FunctionCall struct {
						Name string         `json:"name"`
						Args map[string]any `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(events[0]), &ev); err != nil {
		t.Fatal(err)
	}
	if fc := ev.Candidates[0].Content.Parts[0].FunctionCall; fc.Name != "mcp_agentgrid_spawn_agent" || fc.Args["argv"] == nil {
		t.Errorf("function call %+v", fc)
	}

	// A side request wanting JSON gets JSON that fits its schema.
	resp, err = http.Post(s.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{
		"reasoning":{"type":"STRING"},"score":{"type":"INTEGER"},"note":{"type":"STRING"}},"required":["reasoning","score"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var side struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string } `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&side)
	resp.Body.Close()
	if got := side.Candidates[0].Content.Parts[0].Text; got != `{"reasoning":"live","score":1}` {
		t.Errorf("side request answered %q", got)
	}

	// A function response ends the turn.
	resp, err = http.Post(s.URL+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{`+tools+`,"contents":[
		{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"ok"}}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(resp.Body).Decode(&side)
	resp.Body.Close()
	if got := side.Candidates[0].Content.Parts[0].Text; !strings.HasPrefix(got, "LIVE-DONE") {
		t.Errorf("after a function response: %q", got)
	}
	if r := s.Requests(); len(r) != 3 || r[0].API != "gemini" || !r[0].Stream || !r[2].ToolResult {
		t.Errorf("requests: %+v", r)
	}
}

// TestScriptedFailureEveryAPI: FAIL answers with that HTTP status on each
// API, and the request is recorded all the same.
func TestScriptedFailureEveryAPI(t *testing.T) {
	s, err := Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, c := range []struct{ path, body string }{
		{"/v1/messages", `{"model":"m","tools":[{"name":"t"}],"messages":[{"role":"user","content":"FAIL 429"}]}`},
		{"/v1/responses", `{"model":"m","stream":true,"tools":[{"type":"function","name":"t"}],"input":[{"role":"user","content":"FAIL 429"}]}`},
		{"/v1beta/models/m:streamGenerateContent?alt=sse", `{"tools":[{"functionDeclarations":[{"name":"t"}]}],"contents":[{"role":"user","parts":[{"text":"FAIL 429"}]}]}`},
	} {
		resp, err := http.Post(s.URL+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 429 {
			t.Errorf("%s: FAIL 429 answered %d", c.path, resp.StatusCode)
		}
		if n := len(s.Requests()); n != i+1 {
			t.Errorf("%s: %d requests recorded, want %d", c.path, n, i+1)
		}
	}
}
