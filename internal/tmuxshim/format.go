package tmuxshim

import "strings"

// Vars looks up a format variable (pane_id, @user_option, ...); ok is false
// for an unknown one, which renders empty as in tmux.
type Vars func(name string) (value string, ok bool)

// short are tmux's one-letter format aliases.
var short = map[byte]string{
	'D': "pane_id", 'P': "pane_index", 'T': "pane_title", 'S': "session_name",
	'I': "window_index", 'W': "window_name", 'H': "host", 'h': "host_short", 'F': "window_flags",
}

// Expand renders a tmux format: #{name}, #{?cond,then,else},
// #{==:a,b}, #{!=:a,b}, #{||:a,b}, #{&&:a,b}, the one-letter aliases (#D),
// and ## for '#'. Style blocks (#[fg=blue]) are kept as written.
func Expand(format string, vars Vars) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		ch := format[i]
		if ch != '#' || i+1 == len(format) {
			b.WriteByte(ch)
			continue
		}
		next := format[i+1]
		switch {
		case next == '#':
			b.WriteByte('#')
			i++
		case next == '{':
			end := matchBrace(format, i+1)
			if end < 0 {
				b.WriteString(format[i:])
				return b.String()
			}
			b.WriteString(expandItem(format[i+2:end], vars))
			i = end
		case short[next] != "":
			v, _ := vars(short[next])
			b.WriteString(v)
			i++
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// matchBrace returns the index of the '}' closing the '{' at open, or -1.
func matchBrace(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTop splits s at commas outside nested #{...}.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

func truthy(s string) bool { return s != "" && s != "0" }

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func expandItem(item string, vars Vars) string {
	if strings.HasPrefix(item, "?") {
		parts := splitTop(item[1:])
		if len(parts) < 2 {
			return ""
		}
		cond := condValue(parts[0], vars)
		switch {
		case truthy(cond):
			return Expand(parts[1], vars)
		case len(parts) > 2:
			return Expand(strings.Join(parts[2:], ","), vars)
		}
		return ""
	}
	for _, op := range []string{"==:", "!=:", "||:", "&&:"} {
		if !strings.HasPrefix(item, op) {
			continue
		}
		parts := splitTop(item[len(op):])
		if len(parts) != 2 {
			return ""
		}
		a, c := Expand(parts[0], vars), Expand(parts[1], vars)
		switch op {
		case "==:":
			return boolStr(a == c)
		case "!=:":
			return boolStr(a != c)
		case "||:":
			return boolStr(truthy(a) || truthy(c))
		default:
			return boolStr(truthy(a) && truthy(c))
		}
	}
	v, _ := vars(item)
	return v
}

// condValue is a conditional's test: a format of its own or a variable name.
func condValue(cond string, vars Vars) string {
	if strings.Contains(cond, "#") {
		return Expand(cond, vars)
	}
	return expandItem(cond, vars)
}
