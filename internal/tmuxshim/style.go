package tmuxshim

import (
	"strconv"
	"strings"
)

var colourNames = map[string]int{
	"black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
}

// StyleForeground reads the foreground of a tmux style ("bg=default,fg=blue",
// "fg=colour208,bold", "fg=#ff8800") and returns it as an SGR sequence;
// "" when the style sets no usable foreground. Only the parsed colour
// reaches the SGR, never the style's text.
func StyleForeground(style string) string {
	sgr := ""
	for _, part := range strings.FieldsFunc(style, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, ok := strings.CutPrefix(part, "fg=")
		if !ok {
			continue
		}
		sgr = colourSGR(strings.ToLower(v))
	}
	return sgr
}

func colourSGR(c string) string {
	if n, ok := colourNames[c]; ok {
		return "\x1b[" + strconv.Itoa(30+n) + "m"
	}
	if base, ok := strings.CutPrefix(c, "bright"); ok {
		if n, ok := colourNames[base]; ok {
			return "\x1b[" + strconv.Itoa(90+n) + "m"
		}
	}
	for _, p := range []string{"colour", "color"} {
		if v, ok := strings.CutPrefix(c, p); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= 255 {
				return "\x1b[38;5;" + strconv.Itoa(n) + "m"
			}
		}
	}
	if h, ok := strings.CutPrefix(c, "#"); ok && len(h) == 6 {
		if v, err := strconv.ParseUint(h, 16, 32); err == nil {
			return "\x1b[38;2;" + strconv.Itoa(int(v>>16)) + ";" + strconv.Itoa(int(v>>8&0xff)) + ";" + strconv.Itoa(int(v&0xff)) + "m"
		}
	}
	return ""
}
