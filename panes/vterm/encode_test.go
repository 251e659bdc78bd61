package vterm

import (
	"fmt"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
)

func TestEncodeKeyLegacy(t *testing.T) {
	app := Modes{AppCursor: true}
	kpam := Modes{AppKeypad: true}
	mok := Modes{OtherKeys: 1}
	tests := []struct {
		name  string
		modes Modes
		key   uv.Key
		want  string
	}{
		{"letter", Modes{}, uv.Key{Code: 'a', Text: "a"}, "a"},
		{"shifted letter", Modes{}, uv.Key{Code: 'a', ShiftedCode: 'A', Text: "A", Mod: uv.ModShift}, "A"},
		{"shift without text", Modes{}, uv.Key{Code: 'a', Mod: uv.ModShift}, "A"},
		{"code without text", Modes{}, uv.Key{Code: 'x'}, "x"},
		{"utf8 text", Modes{}, uv.Key{Code: 'é', Text: "é"}, "é"},
		{"cjk text", Modes{}, uv.Key{Code: '漢', Text: "漢"}, "漢"},
		{"multi-rune text", Modes{}, uv.Key{Code: uv.KeyExtended, Text: "👍🏽"}, "👍🏽"},
		{"space", Modes{}, uv.Key{Code: uv.KeySpace, Text: " "}, " "},
		{"caps lock is ignored", Modes{}, uv.Key{Code: 'a', Text: "A", Mod: uv.ModCapsLock}, "A"},

		{"ctrl+a", Modes{}, uv.Key{Code: 'a', Mod: uv.ModCtrl}, "\x01"},
		{"ctrl+z", Modes{}, uv.Key{Code: 'z', Mod: uv.ModCtrl}, "\x1a"},
		{"ctrl+shift+a", Modes{}, uv.Key{Code: 'a', Mod: uv.ModCtrl | uv.ModShift}, "\x01"},
		{"ctrl+space", Modes{}, uv.Key{Code: uv.KeySpace, Mod: uv.ModCtrl}, "\x00"},
		{"ctrl+@", Modes{}, uv.Key{Code: '@', Mod: uv.ModCtrl}, "\x00"},
		{"ctrl+[", Modes{}, uv.Key{Code: '[', Mod: uv.ModCtrl}, "\x1b"},
		{"ctrl+backslash", Modes{}, uv.Key{Code: '\\', Mod: uv.ModCtrl}, "\x1c"},
		{"ctrl+]", Modes{}, uv.Key{Code: ']', Mod: uv.ModCtrl}, "\x1d"},
		{"ctrl+^", Modes{}, uv.Key{Code: '^', Mod: uv.ModCtrl}, "\x1e"},
		{"ctrl+_", Modes{}, uv.Key{Code: '_', Mod: uv.ModCtrl}, "\x1f"},
		{"ctrl+/", Modes{}, uv.Key{Code: '/', Mod: uv.ModCtrl}, "\x1f"},
		{"ctrl+?", Modes{}, uv.Key{Code: '?', Mod: uv.ModCtrl}, "\x7f"},
		{"ctrl+2", Modes{}, uv.Key{Code: '2', Mod: uv.ModCtrl}, "\x00"},
		{"ctrl+6", Modes{}, uv.Key{Code: '6', Mod: uv.ModCtrl}, "\x1e"},
		// Without modifyOtherKeys a combination with no C0 byte types the
		// key, as a terminal without extended keys does (and tmux's panes
		// get); with it, the child is told exactly what was pressed.
		{"ctrl+1 has no C0", Modes{}, uv.Key{Code: '1', Mod: uv.ModCtrl}, "1"},
		{"ctrl+9", Modes{}, uv.Key{Code: '9', Mod: uv.ModCtrl}, "9"},
		{"ctrl+0", Modes{}, uv.Key{Code: '0', Mod: uv.ModCtrl}, "0"},
		{"ctrl+alt+1", Modes{}, uv.Key{Code: '1', Mod: uv.ModCtrl | uv.ModAlt}, "\x1b1"},
		{"ctrl+1 modifyOtherKeys", mok, uv.Key{Code: '1', Mod: uv.ModCtrl}, "\x1b[27;5;49~"},
		{"ctrl+0 modifyOtherKeys 2", Modes{OtherKeys: 2}, uv.Key{Code: '0', Mod: uv.ModCtrl}, "\x1b[27;5;48~"},
		{"ctrl+2 modifyOtherKeys keeps C0", mok, uv.Key{Code: '2', Mod: uv.ModCtrl}, "\x00"},
		{"ctrl+alt+a", Modes{}, uv.Key{Code: 'a', Mod: uv.ModCtrl | uv.ModAlt}, "\x1b\x01"},

		{"alt+a", Modes{}, uv.Key{Code: 'a', Mod: uv.ModAlt}, "\x1ba"},
		{"alt+shift+a", Modes{}, uv.Key{Code: 'a', ShiftedCode: 'A', Mod: uv.ModAlt | uv.ModShift}, "\x1bA"},
		{"alt+utf8", Modes{}, uv.Key{Code: 'ß', Mod: uv.ModAlt}, "\x1bß"},
		{"meta acts as alt", Modes{}, uv.Key{Code: 'b', Mod: uv.ModMeta}, "\x1bb"},

		{"enter", Modes{}, uv.Key{Code: uv.KeyEnter}, "\r"},
		{"alt+enter", Modes{}, uv.Key{Code: uv.KeyEnter, Mod: uv.ModAlt}, "\x1b\r"},
		{"shift+enter", Modes{}, uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, "\r"},
		{"ctrl+enter", Modes{}, uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl}, "\r"},
		{"ctrl+shift+enter", Modes{}, uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl | uv.ModShift}, "\r"},
		{"shift+enter modifyOtherKeys", mok, uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, "\x1b[27;2;13~"},
		{"ctrl+enter modifyOtherKeys", mok, uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl}, "\x1b[27;5;13~"},
		{"ctrl+shift+enter modifyOtherKeys", mok, uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl | uv.ModShift}, "\x1b[27;6;13~"},
		{"alt+enter modifyOtherKeys", mok, uv.Key{Code: uv.KeyEnter, Mod: uv.ModAlt}, "\x1b\r"},
		{"tab", Modes{}, uv.Key{Code: uv.KeyTab}, "\t"},
		{"shift+tab", Modes{}, uv.Key{Code: uv.KeyTab, Mod: uv.ModShift}, "\x1b[Z"},
		{"alt+tab", Modes{}, uv.Key{Code: uv.KeyTab, Mod: uv.ModAlt}, "\x1b\t"},
		{"ctrl+tab", Modes{}, uv.Key{Code: uv.KeyTab, Mod: uv.ModCtrl}, "\t"},
		{"ctrl+shift+tab", Modes{}, uv.Key{Code: uv.KeyTab, Mod: uv.ModCtrl | uv.ModShift}, "\x1b[Z"},
		{"ctrl+tab modifyOtherKeys", mok, uv.Key{Code: uv.KeyTab, Mod: uv.ModCtrl}, "\x1b[27;5;9~"},
		{"ctrl+shift+tab modifyOtherKeys", mok, uv.Key{Code: uv.KeyTab, Mod: uv.ModCtrl | uv.ModShift}, "\x1b[27;6;9~"},
		{"backspace", Modes{}, uv.Key{Code: uv.KeyBackspace}, "\x7f"},
		{"alt+backspace", Modes{}, uv.Key{Code: uv.KeyBackspace, Mod: uv.ModAlt}, "\x1b\x7f"},
		{"ctrl+backspace", Modes{}, uv.Key{Code: uv.KeyBackspace, Mod: uv.ModCtrl}, "\x08"},
		{"esc", Modes{}, uv.Key{Code: uv.KeyEscape}, "\x1b"},
		{"alt+esc", Modes{}, uv.Key{Code: uv.KeyEscape, Mod: uv.ModAlt}, "\x1b\x1b"},

		{"up normal", Modes{}, uv.Key{Code: uv.KeyUp}, "\x1b[A"},
		{"down normal", Modes{}, uv.Key{Code: uv.KeyDown}, "\x1b[B"},
		{"right normal", Modes{}, uv.Key{Code: uv.KeyRight}, "\x1b[C"},
		{"left normal", Modes{}, uv.Key{Code: uv.KeyLeft}, "\x1b[D"},
		{"home normal", Modes{}, uv.Key{Code: uv.KeyHome}, "\x1b[H"},
		{"end normal", Modes{}, uv.Key{Code: uv.KeyEnd}, "\x1b[F"},
		{"up DECCKM", app, uv.Key{Code: uv.KeyUp}, "\x1bOA"},
		{"left DECCKM", app, uv.Key{Code: uv.KeyLeft}, "\x1bOD"},
		{"home DECCKM", app, uv.Key{Code: uv.KeyHome}, "\x1bOH"},
		{"end DECCKM", app, uv.Key{Code: uv.KeyEnd}, "\x1bOF"},
		{"ctrl+up", Modes{}, uv.Key{Code: uv.KeyUp, Mod: uv.ModCtrl}, "\x1b[1;5A"},
		{"ctrl+up DECCKM stays CSI", app, uv.Key{Code: uv.KeyUp, Mod: uv.ModCtrl}, "\x1b[1;5A"},
		{"shift+right", Modes{}, uv.Key{Code: uv.KeyRight, Mod: uv.ModShift}, "\x1b[1;2C"},
		{"alt+left", Modes{}, uv.Key{Code: uv.KeyLeft, Mod: uv.ModAlt}, "\x1b[1;3D"},
		{"ctrl+alt+shift+down", Modes{}, uv.Key{Code: uv.KeyDown, Mod: uv.ModCtrl | uv.ModAlt | uv.ModShift}, "\x1b[1;8B"},
		{"shift+end", Modes{}, uv.Key{Code: uv.KeyEnd, Mod: uv.ModShift}, "\x1b[1;2F"},
		{"keypad up as up", app, uv.Key{Code: uv.KeyKpUp}, "\x1bOA"},

		{"insert", Modes{}, uv.Key{Code: uv.KeyInsert}, "\x1b[2~"},
		{"delete", Modes{}, uv.Key{Code: uv.KeyDelete}, "\x1b[3~"},
		{"pgup", Modes{}, uv.Key{Code: uv.KeyPgUp}, "\x1b[5~"},
		{"pgdown", Modes{}, uv.Key{Code: uv.KeyPgDown}, "\x1b[6~"},
		{"ctrl+delete", Modes{}, uv.Key{Code: uv.KeyDelete, Mod: uv.ModCtrl}, "\x1b[3;5~"},
		{"shift+pgup", Modes{}, uv.Key{Code: uv.KeyPgUp, Mod: uv.ModShift}, "\x1b[5;2~"},

		{"f1", Modes{}, uv.Key{Code: uv.KeyF1}, "\x1bOP"},
		{"f2", Modes{}, uv.Key{Code: uv.KeyF2}, "\x1bOQ"},
		{"f3", Modes{}, uv.Key{Code: uv.KeyF3}, "\x1bOR"},
		{"f4", Modes{}, uv.Key{Code: uv.KeyF4}, "\x1bOS"},
		{"f5", Modes{}, uv.Key{Code: uv.KeyF5}, "\x1b[15~"},
		{"f6", Modes{}, uv.Key{Code: uv.KeyF6}, "\x1b[17~"},
		{"f7", Modes{}, uv.Key{Code: uv.KeyF7}, "\x1b[18~"},
		{"f8", Modes{}, uv.Key{Code: uv.KeyF8}, "\x1b[19~"},
		{"f9", Modes{}, uv.Key{Code: uv.KeyF9}, "\x1b[20~"},
		{"f10", Modes{}, uv.Key{Code: uv.KeyF10}, "\x1b[21~"},
		{"f11", Modes{}, uv.Key{Code: uv.KeyF11}, "\x1b[23~"},
		{"f12", Modes{}, uv.Key{Code: uv.KeyF12}, "\x1b[24~"},
		{"shift+f1", Modes{}, uv.Key{Code: uv.KeyF1, Mod: uv.ModShift}, "\x1b[1;2P"},
		{"ctrl+f5", Modes{}, uv.Key{Code: uv.KeyF5, Mod: uv.ModCtrl}, "\x1b[15;5~"},
		{"f1 DECCKM", app, uv.Key{Code: uv.KeyF1}, "\x1bOP"},

		{"keypad 5 numeric", Modes{}, uv.Key{Code: uv.KeyKp5}, "5"},
		{"keypad enter numeric", Modes{}, uv.Key{Code: uv.KeyKpEnter}, "\r"},
		{"keypad plus numeric", Modes{}, uv.Key{Code: uv.KeyKpPlus}, "+"},
		{"keypad 0 DECKPAM", kpam, uv.Key{Code: uv.KeyKp0}, "\x1bOp"},
		{"keypad 9 DECKPAM", kpam, uv.Key{Code: uv.KeyKp9}, "\x1bOy"},
		{"keypad enter DECKPAM", kpam, uv.Key{Code: uv.KeyKpEnter}, "\x1bOM"},
		{"keypad minus DECKPAM", kpam, uv.Key{Code: uv.KeyKpMinus}, "\x1bOm"},
		{"keypad multiply DECKPAM", kpam, uv.Key{Code: uv.KeyKpMultiply}, "\x1bOj"},
		{"keypad divide DECKPAM", kpam, uv.Key{Code: uv.KeyKpDivide}, "\x1bOo"},
		{"keypad decimal DECKPAM", kpam, uv.Key{Code: uv.KeyKpDecimal}, "\x1bOn"},

		{"bare modifier key", Modes{}, uv.Key{Code: uv.KeyLeftShift}, ""},
		{"media key", Modes{}, uv.Key{Code: uv.KeyMediaPlay}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(encodeKey(tt.modes, tt.key))
			if got != tt.want {
				t.Errorf("encodeKey(%+v) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestEncodeKeyKitty(t *testing.T) {
	dis := Modes{KittyFlags: kittyDisambiguate}
	disApp := Modes{KittyFlags: kittyDisambiguate, AppCursor: true}
	alt := Modes{KittyFlags: kittyDisambiguate | kittyAlternateKeys}
	all := Modes{KittyFlags: kittyDisambiguate | kittyAllKeysAsEscapes}
	allText := Modes{KittyFlags: kittyDisambiguate | kittyAllKeysAsEscapes | kittyAssociatedText}
	events := Modes{KittyFlags: kittyDisambiguate | kittyEventTypes}
	tests := []struct {
		name  string
		modes Modes
		key   uv.Key
		want  string
	}{
		{"text stays text", dis, uv.Key{Code: 'a', Text: "a"}, "a"},
		{"shifted text stays text", dis, uv.Key{Code: 'a', ShiftedCode: 'A', Text: "A", Mod: uv.ModShift}, "A"},
		{"utf8 text stays text", dis, uv.Key{Code: 'ж', Text: "ж"}, "ж"},
		{"esc", dis, uv.Key{Code: uv.KeyEscape}, "\x1b[27u"},
		{"alt+esc", dis, uv.Key{Code: uv.KeyEscape, Mod: uv.ModAlt}, "\x1b[27;3u"},
		{"enter legacy", dis, uv.Key{Code: uv.KeyEnter}, "\r"},
		{"tab legacy", dis, uv.Key{Code: uv.KeyTab}, "\t"},
		{"backspace legacy", dis, uv.Key{Code: uv.KeyBackspace}, "\x7f"},
		{"shift+enter", dis, uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, "\x1b[13;2u"},
		{"ctrl+enter", dis, uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl}, "\x1b[13;5u"},
		{"alt+enter", dis, uv.Key{Code: uv.KeyEnter, Mod: uv.ModAlt}, "\x1b[13;3u"},
		{"shift+tab", dis, uv.Key{Code: uv.KeyTab, Mod: uv.ModShift}, "\x1b[9;2u"},
		{"ctrl+backspace", dis, uv.Key{Code: uv.KeyBackspace, Mod: uv.ModCtrl}, "\x1b[127;5u"},
		{"ctrl+a", dis, uv.Key{Code: 'a', Mod: uv.ModCtrl}, "\x1b[97;5u"},
		{"ctrl+shift+a", dis, uv.Key{Code: 'a', Mod: uv.ModCtrl | uv.ModShift}, "\x1b[97;6u"},
		{"ctrl+A upper code", dis, uv.Key{Code: 'A', Mod: uv.ModCtrl | uv.ModShift}, "\x1b[97;6u"},
		{"alt+a", dis, uv.Key{Code: 'a', Mod: uv.ModAlt}, "\x1b[97;3u"},
		{"ctrl+[", dis, uv.Key{Code: '[', Mod: uv.ModCtrl}, "\x1b[91;5u"},
		{"ctrl+space", dis, uv.Key{Code: uv.KeySpace, Mod: uv.ModCtrl}, "\x1b[32;5u"},
		{"super+a", dis, uv.Key{Code: 'a', Mod: uv.ModSuper}, "\x1b[97;9u"},
		{"meta+a", dis, uv.Key{Code: 'a', Mod: uv.ModMeta}, "\x1b[97;33u"},
		{"up", dis, uv.Key{Code: uv.KeyUp}, "\x1b[A"},
		{"up DECCKM", disApp, uv.Key{Code: uv.KeyUp}, "\x1bOA"},
		{"ctrl+up", dis, uv.Key{Code: uv.KeyUp, Mod: uv.ModCtrl}, "\x1b[1;5A"},
		{"f1", dis, uv.Key{Code: uv.KeyF1}, "\x1bOP"},
		{"shift+f1", dis, uv.Key{Code: uv.KeyF1, Mod: uv.ModShift}, "\x1b[1;2P"},
		{"ctrl+f3 avoids CSI R", dis, uv.Key{Code: uv.KeyF3, Mod: uv.ModCtrl}, "\x1b[13;5~"},
		{"f5", dis, uv.Key{Code: uv.KeyF5}, "\x1b[15~"},
		{"shift+delete", dis, uv.Key{Code: uv.KeyDelete, Mod: uv.ModShift}, "\x1b[3;2~"},
		{"f13", dis, uv.Key{Code: uv.KeyF13}, "\x1b[57376u"},
		{"keypad 0", dis, uv.Key{Code: uv.KeyKp0}, "\x1b[57399u"},
		{"keypad enter", dis, uv.Key{Code: uv.KeyKpEnter}, "\x1b[57414u"},
		{"caps lock key", dis, uv.Key{Code: uv.KeyCapsLock}, "\x1b[57358u"},
		{"media play", dis, uv.Key{Code: uv.KeyMediaPlay}, "\x1b[57428u"},
		{"bare shift not reported", dis, uv.Key{Code: uv.KeyLeftShift, Mod: uv.ModShift}, ""},
		{"caps lock modifier ignored", dis, uv.Key{Code: 'a', Mod: uv.ModCtrl | uv.ModCapsLock}, "\x1b[97;5u"},

		{"alternate shifted", alt, uv.Key{Code: 'a', ShiftedCode: 'A', Mod: uv.ModCtrl | uv.ModShift}, "\x1b[97:65;6u"},
		{"alternate base", alt, uv.Key{Code: 'q', BaseCode: 'a', Mod: uv.ModCtrl}, "\x1b[113::97;5u"},
		{"alternate both", alt, uv.Key{Code: 'q', ShiftedCode: 'Q', BaseCode: 'a', Mod: uv.ModCtrl | uv.ModShift}, "\x1b[113:81:97;6u"},

		{"all: letter", all, uv.Key{Code: 'a', Text: "a"}, "\x1b[97u"},
		{"all: shift+a", all, uv.Key{Code: 'a', ShiftedCode: 'A', Text: "A", Mod: uv.ModShift}, "\x1b[97;2u"},
		{"all: enter", all, uv.Key{Code: uv.KeyEnter}, "\x1b[13u"},
		{"all: tab", all, uv.Key{Code: uv.KeyTab}, "\x1b[9u"},
		{"all: backspace", all, uv.Key{Code: uv.KeyBackspace}, "\x1b[127u"},
		{"all: up", all, uv.Key{Code: uv.KeyUp}, "\x1b[A"},
		{"all: f1", all, uv.Key{Code: uv.KeyF1}, "\x1b[P"},
		{"all: f3", all, uv.Key{Code: uv.KeyF3}, "\x1b[13~"},
		{"all: left shift", all, uv.Key{Code: uv.KeyLeftShift, Mod: uv.ModShift}, "\x1b[57441;2u"},
		{"all: left ctrl", all, uv.Key{Code: uv.KeyLeftCtrl, Mod: uv.ModCtrl}, "\x1b[57442;5u"},
		{"all: right alt", all, uv.Key{Code: uv.KeyRightAlt}, "\x1b[57449u"},
		{"all: caps lock counts", all, uv.Key{Code: 'a', Text: "A", Mod: uv.ModCapsLock}, "\x1b[97;65u"},
		{"all: utf8", all, uv.Key{Code: 'é', Text: "é"}, "\x1b[233u"},
		{"all+text: letter", allText, uv.Key{Code: 'a', Text: "a"}, "\x1b[97;1;97u"},
		{"all+text: shift+a", allText, uv.Key{Code: 'a', ShiftedCode: 'A', Text: "A", Mod: uv.ModShift}, "\x1b[97;2;65u"},
		{"all+text: ctrl+a has no text", allText, uv.Key{Code: 'a', Mod: uv.ModCtrl}, "\x1b[97;5u"},
		{"all+text: enter has no text", allText, uv.Key{Code: uv.KeyEnter}, "\x1b[13u"},

		{"repeat reported", events, uv.Key{Code: 'a', Mod: uv.ModCtrl, IsRepeat: true}, "\x1b[97;5:2u"},
		{"repeat of plain esc", events, uv.Key{Code: uv.KeyEscape, IsRepeat: true}, "\x1b[27;1:2u"},
		{"repeat of arrow", events, uv.Key{Code: uv.KeyUp, IsRepeat: true}, "\x1b[1;1:2A"},
		{"repeat not reported without flag", dis, uv.Key{Code: 'a', Mod: uv.ModCtrl, IsRepeat: true}, "\x1b[97;5u"},
		{"report all only", Modes{KittyFlags: kittyAllKeysAsEscapes}, uv.Key{Code: 'z', Text: "z"}, "\x1b[122u"},
		{"event types alone is legacy", Modes{KittyFlags: kittyEventTypes}, uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, "\r"},
		{"event types alone with modifyOtherKeys", Modes{KittyFlags: kittyEventTypes, OtherKeys: 1}, uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, "\x1b[27;2;13~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(encodeKey(tt.modes, tt.key))
			if got != tt.want {
				t.Errorf("encodeKey(%+v) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestEncodeMouse(t *testing.T) {
	x10 := Modes{Mouse: MouseX10}
	normal := Modes{Mouse: MouseNormal}
	button := Modes{Mouse: MouseButton}
	anyM := Modes{Mouse: MouseAny}
	sgr := Modes{Mouse: MouseNormal, MouseSGR: true}
	sgrAny := Modes{Mouse: MouseAny, MouseSGR: true}
	sgrButton := Modes{Mouse: MouseButton, MouseSGR: true}
	press := func(b uv.MouseButton, x, y int) MouseEvent {
		return MouseEvent{Kind: MousePress, Button: b, X: x, Y: y}
	}
	legacy := func(b, x, y int) string {
		return string([]byte{0x1b, '[', 'M', byte(32 + b), byte(33 + x), byte(33 + y)})
	}
	tests := []struct {
		name  string
		modes Modes
		ev    MouseEvent
		want  string
	}{
		{"off", Modes{}, press(uv.MouseLeft, 1, 1), ""},
		{"sgr without tracking is off", Modes{MouseSGR: true}, press(uv.MouseLeft, 1, 1), ""},

		{"x10 press", x10, press(uv.MouseLeft, 0, 0), legacy(0, 0, 0)},
		{"x10 right press", x10, press(uv.MouseRight, 4, 2), legacy(2, 4, 2)},
		{"x10 no release", x10, MouseEvent{Kind: MouseRelease, Button: uv.MouseLeft}, ""},
		{"x10 no modifiers", x10, MouseEvent{Kind: MousePress, Button: uv.MouseLeft, Mod: uv.ModCtrl}, legacy(0, 0, 0)},
		{"x10 no motion", x10, MouseEvent{Kind: MouseMotion, Button: uv.MouseLeft}, ""},

		{"normal press", normal, press(uv.MouseLeft, 9, 4), legacy(0, 9, 4)},
		{"normal middle", normal, press(uv.MouseMiddle, 0, 0), legacy(1, 0, 0)},
		{"normal release is button 3", normal, MouseEvent{Kind: MouseRelease, Button: uv.MouseLeft, X: 1, Y: 1}, legacy(3, 1, 1)},
		{"normal release keeps mods", normal, MouseEvent{Kind: MouseRelease, Button: uv.MouseRight, Mod: uv.ModShift}, legacy(7, 0, 0)},
		{"normal no motion", normal, MouseEvent{Kind: MouseMotion, Button: uv.MouseLeft}, ""},
		{"normal wheel up", normal, MouseEvent{Kind: MouseWheel, Button: uv.MouseWheelUp, X: 2, Y: 3}, legacy(64, 2, 3)},
		{"normal wheel down", normal, MouseEvent{Kind: MouseWheel, Button: uv.MouseWheelDown}, legacy(65, 0, 0)},
		{"wheel given as press", normal, press(uv.MouseWheelUp, 0, 0), legacy(64, 0, 0)},
		{"shift press", normal, MouseEvent{Kind: MousePress, Button: uv.MouseLeft, Mod: uv.ModShift}, legacy(4, 0, 0)},
		{"alt press", normal, MouseEvent{Kind: MousePress, Button: uv.MouseLeft, Mod: uv.ModAlt}, legacy(8, 0, 0)},
		{"ctrl press", normal, MouseEvent{Kind: MousePress, Button: uv.MouseLeft, Mod: uv.ModCtrl}, legacy(16, 0, 0)},
		{"ctrl+shift wheel", normal, MouseEvent{Kind: MouseWheel, Button: uv.MouseWheelDown, Mod: uv.ModCtrl | uv.ModShift}, legacy(85, 0, 0)},
		{"legacy last coordinate", normal, press(uv.MouseLeft, 222, 222), legacy(0, 222, 222)},
		{"legacy past the limit", normal, press(uv.MouseLeft, 223, 0), ""},
		{"legacy row past the limit", normal, press(uv.MouseLeft, 0, 300), ""},
		{"negative", normal, press(uv.MouseLeft, -1, 0), ""},

		{"button drag", button, MouseEvent{Kind: MouseMotion, Button: uv.MouseLeft, X: 5, Y: 5}, legacy(32, 5, 5)},
		{"button motion without button", button, MouseEvent{Kind: MouseMotion, X: 5, Y: 5}, ""},
		{"any motion without button", anyM, MouseEvent{Kind: MouseMotion, X: 5, Y: 5}, legacy(35, 5, 5)},
		{"any drag right", anyM, MouseEvent{Kind: MouseMotion, Button: uv.MouseRight}, legacy(34, 0, 0)},

		{"sgr press", sgr, press(uv.MouseLeft, 0, 0), "\x1b[<0;1;1M"},
		{"sgr release", sgr, MouseEvent{Kind: MouseRelease, Button: uv.MouseRight, X: 9, Y: 19}, "\x1b[<2;10;20m"},
		{"sgr far coordinates", sgr, press(uv.MouseLeft, 499, 299), "\x1b[<0;500;300M"},
		{"sgr wheel up", sgr, MouseEvent{Kind: MouseWheel, Button: uv.MouseWheelUp, X: 3, Y: 4}, "\x1b[<64;4;5M"},
		{"sgr wheel down", sgr, MouseEvent{Kind: MouseWheel, Button: uv.MouseWheelDown}, "\x1b[<65;1;1M"},
		{"sgr wheel left", sgr, MouseEvent{Kind: MouseWheel, Button: uv.MouseWheelLeft}, "\x1b[<66;1;1M"},
		{"sgr mods", sgr, MouseEvent{Kind: MousePress, Button: uv.MouseMiddle, Mod: uv.ModCtrl | uv.ModAlt | uv.ModShift}, "\x1b[<29;1;1M"},
		{"sgr back button", sgr, press(uv.MouseBackward, 0, 0), "\x1b[<128;1;1M"},
		{"sgr no motion in 1000", sgr, MouseEvent{Kind: MouseMotion, Button: uv.MouseLeft}, ""},
		{"sgr drag in 1002", sgrButton, MouseEvent{Kind: MouseMotion, Button: uv.MouseLeft, X: 1, Y: 2}, "\x1b[<32;2;3M"},
		{"sgr hover in 1002", sgrButton, MouseEvent{Kind: MouseMotion, X: 1, Y: 2}, ""},
		{"sgr hover in 1003", sgrAny, MouseEvent{Kind: MouseMotion, X: 1, Y: 2}, "\x1b[<35;2;3M"},
		{"sgr x10 press", Modes{Mouse: MouseX10, MouseSGR: true}, press(uv.MouseLeft, 0, 0), "\x1b[<0;1;1M"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(encodeMouse(tt.modes, tt.ev))
			if got != tt.want {
				t.Errorf("encodeMouse(%+v) = %q, want %q", tt.ev, got, tt.want)
			}
		})
	}
}

func TestEncodePaste(t *testing.T) {
	br := Modes{BracketedPaste: true}
	tests := []struct {
		name  string
		modes Modes
		in    string
		want  string
	}{
		{"plain", Modes{}, "hello", "hello"},
		{"plain newlines become CR", Modes{}, "a\nb\r\nc", "a\rb\rc"},
		{"bracketed", br, "hello", "\x1b[200~hello\x1b[201~"},
		{"bracketed newlines", br, "a\nb", "\x1b[200~a\rb\x1b[201~"},
		{"bracketed utf8", br, "日本語 ✓", "\x1b[200~日本語 ✓\x1b[201~"},
		{"bracketed empty", br, "", "\x1b[200~\x1b[201~"},
		{"end marker stripped", br, "a\x1b[201~rm -rf /\n", "\x1b[200~arm -rf /\r\x1b[201~"},
		{"start marker stripped", br, "x\x1b[200~y", "\x1b[200~xy\x1b[201~"},
		{"nested markers stripped", br, "\x1b[20\x1b[201~1~z", "\x1b[200~z\x1b[201~"},
		{"other escapes kept", br, "\x1b[31mred", "\x1b[200~\x1b[31mred\x1b[201~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(encodePaste(tt.modes, tt.in))
			if got != tt.want {
				t.Errorf("encodePaste(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEncodeFocus(t *testing.T) {
	tests := []struct {
		modes   Modes
		focused bool
		want    string
	}{
		{Modes{}, true, ""},
		{Modes{}, false, ""},
		{Modes{FocusEvents: true}, true, "\x1b[I"},
		{Modes{FocusEvents: true}, false, "\x1b[O"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%v", tt.modes.FocusEvents, tt.focused), func(t *testing.T) {
			if got := string(encodeFocus(tt.modes, tt.focused)); got != tt.want {
				t.Errorf("encodeFocus(%v) = %q, want %q", tt.focused, got, tt.want)
			}
		})
	}
}

// TestTerminalEncoders checks that the Terminal methods read the modes the
// child set through the byte stream.
func TestTerminalEncoders(t *testing.T) {
	term := New(80, 24)
	if got := term.EncodeKey(uv.Key{Code: uv.KeyUp}); string(got) != "\x1b[A" {
		t.Errorf("up before DECCKM = %q", got)
	}
	if got := term.EncodeMouse(MouseEvent{Kind: MousePress, Button: uv.MouseLeft}); got != nil {
		t.Errorf("mouse before any tracking mode = %q, want nil", got)
	}
	if got := term.EncodeFocus(true); got != nil {
		t.Errorf("focus before 1004 = %q, want nil", got)
	}
	if _, err := term.Write([]byte("\x1b[?1h\x1b[?2004h\x1b[?1004h\x1b[?1002h\x1b[?1006h\x1b[>1u")); err != nil {
		t.Fatal(err)
	}
	checks := []struct{ name, got, want string }{
		{"up in DECCKM", string(term.EncodeKey(uv.Key{Code: uv.KeyUp})), "\x1bOA"},
		{"shift+enter with kitty flags", string(term.EncodeKey(uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift})), "\x1b[13;2u"},
		{"paste", string(term.EncodePaste("hi")), "\x1b[200~hi\x1b[201~"},
		{"focus", string(term.EncodeFocus(false)), "\x1b[O"},
		{"drag", string(term.EncodeMouse(MouseEvent{Kind: MouseMotion, Button: uv.MouseLeft, X: 2, Y: 3})), "\x1b[<32;3;4M"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}
