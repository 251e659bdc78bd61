package agentcli

import "testing"

func TestClassifyFailure(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"API Error: Request rejected (429) · This request would exceed your account's rate limit.", FailureRateLimit},
		{"ERROR: exceeded retry limit, last status: 429 Too Many Requests", FailureRateLimit},
		{"You've hit your usage limit reached; try again at 5pm", FailureRateLimit},
		{"[API Error: RESOURCE_EXHAUSTED: Quota exceeded for quota metric]", FailureRateLimit},
		{`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, FailureOverloaded},
		{"503 Service Unavailable", FailureOverloaded},
		{"API Error: 400 scripted failure", ""},
		{"FAIL: TestSomething (exit status 1)", ""},
		{"port 4290 in use", ""},
	} {
		if got := ClassifyFailure(c.text); got != c.want {
			t.Errorf("ClassifyFailure(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestModelArgsAndProvider(t *testing.T) {
	aider := Plain{CLIName: "aider", ModelFlag: "--model"}
	if got := aider.ModelArgs("deepseek/deepseek-chat"); len(got) != 2 || got[0] != "--model" || got[1] != "deepseek/deepseek-chat" {
		t.Errorf("aider ModelArgs = %q", got)
	}
	if aider.Provider("deepseek/deepseek-chat") != "deepseek" || aider.Provider("gpt-4o") != "" {
		t.Error("aider's provider is not the model's prefix")
	}
	if (Plain{CLIName: "shell"}).ModelArgs("x") != nil {
		t.Error("a shell takes a model")
	}
}
