package tmuxshim

import (
	"encoding/hex"
	"strings"
)

var namedKeys = map[string]string{
	"enter": "\r", "kpenter": "\r", "tab": "\t", "btab": "\x1b[Z", "space": " ",
	"escape": "\x1b", "bspace": "\x7f", "up": "\x1b[A", "down": "\x1b[B",
	"right": "\x1b[C", "left": "\x1b[D", "home": "\x1b[H", "end": "\x1b[F",
	"pageup": "\x1b[5~", "ppage": "\x1b[5~", "pgup": "\x1b[5~",
	"pagedown": "\x1b[6~", "npage": "\x1b[6~", "pgdn": "\x1b[6~",
	"ic": "\x1b[2~", "insert": "\x1b[2~", "dc": "\x1b[3~", "delete": "\x1b[3~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// keyBytes is the input one send-keys word stands for: a key name (Enter,
// C-c, M-x, F5) or, when it names no key, the word's own characters.
func keyBytes(word string) string {
	if word == "" {
		return ""
	}
	if s, ok := namedKeys[strings.ToLower(word)]; ok {
		return s
	}
	switch {
	case len(word) >= 3 && (strings.HasPrefix(word, "C-") || strings.HasPrefix(word, "c-") || strings.HasPrefix(word, "^")):
		rest := strings.TrimPrefix(strings.TrimPrefix(word, "C-"), "c-")
		if strings.HasPrefix(word, "^") {
			rest = word[1:]
		}
		if len(rest) == 1 {
			return string(ctrl(rest[0]))
		}
	case len(word) == 2 && word[0] == '^':
		return string(ctrl(word[1]))
	case len(word) >= 3 && (strings.HasPrefix(word, "M-") || strings.HasPrefix(word, "m-")):
		return "\x1b" + keyBytes(word[2:])
	}
	return word
}

func ctrl(c byte) byte {
	switch {
	case c >= 'a' && c <= 'z':
		return c - 'a' + 1
	case c >= '@' && c <= '_':
		return c - '@'
	case c == '?':
		return 0x7f
	case c == ' ':
		return 0
	}
	return c
}

// SendKeysInput is the bytes a parsed send-keys writes: key names
// translated, -l words literal, -H words hex bytes, -N repeating it.
func SendKeysInput(c Command) (string, *Error) {
	if c.Flags['X'] {
		return "", Errorf("not in a mode")
	}
	var b strings.Builder
	for _, w := range c.Args {
		switch {
		case c.Flags['H']:
			h := w
			if len(h)%2 == 1 {
				h = "0" + h
			}
			raw, err := hex.DecodeString(h)
			if err != nil {
				return "", Errorf("invalid key: %s", w)
			}
			b.Write(raw)
		case c.Flags['l']:
			b.WriteString(w)
		default:
			b.WriteString(keyBytes(w))
		}
	}
	out := b.String()
	if n := c.Opt('N'); n != "" {
		k := 0
		for _, d := range n {
			if d < '0' || d > '9' || k > 1000 {
				return "", Errorf("repeat count invalid")
			}
			k = k*10 + int(d-'0')
		}
		out = strings.Repeat(out, max(k, 1))
	}
	return out, nil
}
