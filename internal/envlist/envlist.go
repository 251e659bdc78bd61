// Package envlist reads an environment held as a list of NAME=value
// strings, the form a child process is given (exec.Cmd.Env) and an attached
// client sends.
package envlist

import "strings"

// Value is the value of name in env: the last NAME=value entry, the one a
// process started with env sees; "" when there is none.
func Value(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
