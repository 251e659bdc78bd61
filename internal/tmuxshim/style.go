package tmuxshim

import (
	"strconv"
	"strings"
)

var colourNames = map[string]int{
	"black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
}

// StyleForeground reads the foreground of a tmux style ("bg=default,fg=blue",
// "fg=colour208,bold", "fg=#ff8800") and returns it as a colour in the
// theme's notation: a palette index "0".."255" or "#rrggbb"; "" when the
// style sets no usable foreground. Only the parsed colour is returned,
// never the style's text.
func StyleForeground(style string) string {
	fg := ""
	for _, part := range strings.FieldsFunc(style, func(r rune) bool { return r == ',' || r == ' ' }) {
		v, ok := strings.CutPrefix(part, "fg=")
		if !ok {
			continue
		}
		fg = colour(strings.ToLower(v))
	}
	return fg
}

func colour(c string) string {
	if n, ok := colourNames[c]; ok {
		return strconv.Itoa(n)
	}
	if base, ok := strings.CutPrefix(c, "bright"); ok {
		if n, ok := colourNames[base]; ok {
			return strconv.Itoa(8 + n)
		}
	}
	for _, p := range []string{"colour", "color"} {
		if v, ok := strings.CutPrefix(c, p); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= 255 {
				return strconv.Itoa(n)
			}
		}
	}
	if h, ok := strings.CutPrefix(c, "#"); ok && len(h) == 6 {
		if _, err := strconv.ParseUint(h, 16, 32); err == nil {
			return "#" + h
		}
	}
	return ""
}
