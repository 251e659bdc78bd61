package vterm

import (
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
)

// The mouse, paste and focus encoders; keys are in encode.go.

// encodeMouse encodes a mouse event in the child's tracking mode (X10 press
// only, 1000 press/release, 1002 plus drag, 1003 plus all motion) and
// encoding (SGR 1006 or the legacy byte form).
func encodeMouse(m Modes, ev MouseEvent) []byte {
	if m.Mouse == MouseNone || ev.X < 0 || ev.Y < 0 {
		return nil
	}
	wheel := ev.Kind == MouseWheel || isWheel(ev.Button)
	kind := ev.Kind
	if wheel {
		kind = MouseWheel
	}
	switch kind {
	case MouseRelease:
		if m.Mouse == MouseX10 {
			return nil
		}
	case MouseMotion:
		switch m.Mouse {
		case MouseButton:
			if ev.Button == uv.MouseNone {
				return nil
			}
		case MouseAny:
		default:
			return nil
		}
	case MousePress, MouseWheel:
	default:
		return nil
	}

	b, ok := mouseButtonCodes[ev.Button]
	if !ok {
		return nil
	}
	if kind == MouseMotion {
		b += 32
	}
	if m.Mouse != MouseX10 {
		if ev.Mod&uv.ModShift != 0 {
			b += 4
		}
		if ev.Mod&(uv.ModAlt|uv.ModMeta) != 0 {
			b += 8
		}
		if ev.Mod&uv.ModCtrl != 0 {
			b += 16
		}
	}
	x, y := ev.X+1, ev.Y+1
	if m.MouseSGR {
		final := "M"
		if kind == MouseRelease {
			final = "m"
		}
		return []byte("\x1b[<" + strconv.Itoa(b) + ";" + strconv.Itoa(x) + ";" + strconv.Itoa(y) + final)
	}
	if kind == MouseRelease {
		// The legacy encoding cannot say which button was released.
		b = 3 | (b &^ 3 &^ 64 &^ 128)
	}
	// Each value travels as one byte offset by 32, so nothing past 223 fits.
	if x > 255-32 || y > 255-32 || b > 255-32 {
		return nil
	}
	return []byte{0x1b, '[', 'M', byte(32 + b), byte(32 + x), byte(32 + y)}
}

func isWheel(b uv.MouseButton) bool {
	return b == uv.MouseWheelUp || b == uv.MouseWheelDown || b == uv.MouseWheelLeft || b == uv.MouseWheelRight
}

// mouseButtonCodes are the button numbers of the X11 mouse protocol: 0-2 for
// the main buttons, 3 for "none" (motion without a button), 64+ for the
// wheel and 128+ for the extra buttons.
var mouseButtonCodes = map[uv.MouseButton]int{
	uv.MouseLeft: 0, uv.MouseMiddle: 1, uv.MouseRight: 2, uv.MouseNone: 3,
	uv.MouseWheelUp: 64, uv.MouseWheelDown: 65, uv.MouseWheelLeft: 66, uv.MouseWheelRight: 67,
	uv.MouseBackward: 128, uv.MouseForward: 129, uv.MouseButton10: 130, uv.MouseButton11: 131,
}

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// encodePaste prepares pasted text. Line breaks become CR, as a typed Enter
// would send. In bracketed mode any paste markers inside the text are
// removed, so pasted content can never end the paste early and be run as
// typed input.
func encodePaste(m Modes, s string) []byte {
	s = strings.ReplaceAll(s, "\r\n", "\r")
	s = strings.ReplaceAll(s, "\n", "\r")
	if !m.BracketedPaste {
		return []byte(s)
	}
	// Removing one marker can join two halves into a new one; repeat until
	// none is left.
	for strings.Contains(s, pasteEnd) || strings.Contains(s, pasteStart) {
		s = strings.ReplaceAll(s, pasteEnd, "")
		s = strings.ReplaceAll(s, pasteStart, "")
	}
	out := make([]byte, 0, len(s)+len(pasteStart)+len(pasteEnd))
	out = append(out, pasteStart...)
	out = append(out, s...)
	return append(out, pasteEnd...)
}

// encodeFocus reports focus changes when the child enabled 1004.
func encodeFocus(m Modes, focused bool) []byte {
	if !m.FocusEvents {
		return nil
	}
	if focused {
		return []byte("\x1b[I")
	}
	return []byte("\x1b[O")
}
