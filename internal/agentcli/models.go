package agentcli

import (
	"regexp"
	"strings"
	"sync"
)

// ProviderPrefix is the part of a "provider/model" name before the first
// slash ("openrouter" of "openrouter/anthropic/claude-sonnet-4-5"), or "".
func ProviderPrefix(model string) string {
	p, _, ok := strings.Cut(model, "/")
	if !ok {
		return ""
	}
	return p
}

// The recoverable errors a retry policy may name (retry_on) and that move
// a category to its next fallback.
const (
	FailureRateLimit  = "rate_limit"
	FailureOverloaded = "overloaded"
)

// Failures are the values retry_on takes.
var Failures = []string{FailureRateLimit, FailureOverloaded}

// Compiled when first asked: every agentgrid process (a hook's, the tmux
// shim's) would otherwise pay for them at its start.
var (
	rateLimitText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\brate[ _-]?limit|\b429\b|too many requests|usage limit reached|quota exceeded|resource[ _]exhausted`)
	})
	overloadedText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\boverloaded|\b529\b|\b503\b|service unavailable|server is busy`)
	})
)

// ClassifyFailure says which recoverable error a failed agent's words or
// last screen show: FailureRateLimit, FailureOverloaded, or "". It reads
// the texts the agent CLIs print for an API's 429 and 529/503 answers; it
// is only asked about a process that failed, never about a running one.
func ClassifyFailure(text string) string {
	switch {
	case rateLimitText().MatchString(text):
		return FailureRateLimit
	case overloadedText().MatchString(text):
		return FailureOverloaded
	}
	return ""
}
