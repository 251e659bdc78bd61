package vterm

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
)

// This file turns user input (keys, mouse, paste, focus) into the bytes the
// child expects, given the modes the child asked for. The encoders are pure
// functions of (Modes, event) so they can be table-tested without a screen;
// the Terminal methods only snapshot the modes and call them.

// Kitty keyboard protocol progressive-enhancement flags (CSI > flags u).
const (
	kittyDisambiguate = 1 << iota
	kittyEventTypes
	kittyAlternateKeys
	kittyAllKeysAsEscapes
	kittyAssociatedText
)

// EncodeKey returns the bytes to send to the child for a key press, honouring
// DECCKM, DECKPAM and the kitty keyboard flags the child set. It returns nil
// for keys that have no encoding in the current modes (a bare modifier key
// outside the kitty "report all keys" mode, for example).
func (t *Terminal) EncodeKey(k uv.Key) []byte { return encodeKey(t.Modes(), k) }

// EncodeMouse returns the report for a mouse event in the tracking mode and
// encoding the child asked for, or nil when the child does not want it.
func (t *Terminal) EncodeMouse(ev MouseEvent) []byte { return encodeMouse(t.Modes(), ev) }

// EncodePaste returns pasted text ready for the child: newlines become
// carriage returns (what a typed Enter sends) and, when the child enabled
// bracketed paste (2004), the text is wrapped in ESC[200~ … ESC[201~.
func (t *Terminal) EncodePaste(s string) []byte { return encodePaste(t.Modes(), s) }

// EncodeFocus returns the focus-in or focus-out report (CSI I / CSI O), or nil
// unless the child enabled focus events (1004).
func (t *Terminal) EncodeFocus(focused bool) []byte { return encodeFocus(t.Modes(), focused) }

// xtermMod is the xterm modifier parameter: 1 + shift(1) + alt(2) + ctrl(4) +
// meta(8). Zero means "no modifier", so callers can omit the parameter.
func xtermMod(m uv.KeyMod) int {
	v := 0
	if m&uv.ModShift != 0 {
		v |= 1
	}
	if m&uv.ModAlt != 0 {
		v |= 2
	}
	if m&uv.ModCtrl != 0 {
		v |= 4
	}
	if m&uv.ModMeta != 0 {
		v |= 8
	}
	if v == 0 {
		return 0
	}
	return v + 1
}

// kittyMod is the kitty modifier parameter (1 + bits). Lock keys only count
// in "report all keys" mode, where the child asked to see them.
func kittyMod(m uv.KeyMod, flags int) int {
	v := 0
	for _, b := range [...]struct {
		mod uv.KeyMod
		bit int
	}{
		{uv.ModShift, 1}, {uv.ModAlt, 2}, {uv.ModCtrl, 4}, {uv.ModSuper, 8},
		{uv.ModHyper, 16}, {uv.ModMeta, 32},
	} {
		if m&b.mod != 0 {
			v |= b.bit
		}
	}
	if flags&kittyAllKeysAsEscapes != 0 {
		if m&uv.ModCapsLock != 0 {
			v |= 64
		}
		if m&uv.ModNumLock != 0 {
			v |= 128
		}
	}
	return v + 1
}

// funcKey describes how a non-text key is encoded: either CSI <num> ~ or a
// final letter (CSI 1;m <final>, or SS3 <final> where legacy uses SS3).
type funcKey struct {
	num   int  // for CSI num ~ ; 0 when the key uses a final letter
	final byte // letter for CSI/SS3 forms
	ss3   bool // unmodified legacy form is SS3 (F1-F4) rather than CSI
	app   bool // unmodified form follows DECCKM (arrows, home, end)
}

var funcKeys = map[rune]funcKey{
	uv.KeyUp: {final: 'A', app: true}, uv.KeyDown: {final: 'B', app: true},
	uv.KeyRight: {final: 'C', app: true}, uv.KeyLeft: {final: 'D', app: true},
	uv.KeyHome: {final: 'H', app: true}, uv.KeyEnd: {final: 'F', app: true},
	uv.KeyBegin:  {final: 'E', app: true},
	uv.KeyInsert: {num: 2}, uv.KeyDelete: {num: 3}, uv.KeyPgUp: {num: 5}, uv.KeyPgDown: {num: 6},
	uv.KeyFind: {num: 1}, uv.KeySelect: {num: 4},
	uv.KeyF1: {final: 'P', ss3: true}, uv.KeyF2: {final: 'Q', ss3: true},
	uv.KeyF3: {final: 'R', ss3: true}, uv.KeyF4: {final: 'S', ss3: true},
	uv.KeyF5: {num: 15}, uv.KeyF6: {num: 17}, uv.KeyF7: {num: 18}, uv.KeyF8: {num: 19},
	uv.KeyF9: {num: 20}, uv.KeyF10: {num: 21}, uv.KeyF11: {num: 23}, uv.KeyF12: {num: 24},
	// VT220 F13-F20; higher keys only exist in the kitty protocol.
	uv.KeyF13: {num: 25}, uv.KeyF14: {num: 26}, uv.KeyF15: {num: 28}, uv.KeyF16: {num: 29},
	uv.KeyF17: {num: 31}, uv.KeyF18: {num: 32}, uv.KeyF19: {num: 33}, uv.KeyF20: {num: 34},
}

// keypadApp is the DECKPAM (application keypad) SS3 final for keypad keys,
// keypadText what they type in numeric mode.
var keypadApp = map[rune]byte{
	uv.KeyKp0: 'p', uv.KeyKp1: 'q', uv.KeyKp2: 'r', uv.KeyKp3: 's', uv.KeyKp4: 't',
	uv.KeyKp5: 'u', uv.KeyKp6: 'v', uv.KeyKp7: 'w', uv.KeyKp8: 'x', uv.KeyKp9: 'y',
	uv.KeyKpEnter: 'M', uv.KeyKpEqual: 'X', uv.KeyKpMultiply: 'j', uv.KeyKpPlus: 'k',
	uv.KeyKpComma: 'l', uv.KeyKpSep: 'l', uv.KeyKpMinus: 'm', uv.KeyKpDecimal: 'n', uv.KeyKpDivide: 'o',
}

var keypadText = map[rune]string{
	uv.KeyKp0: "0", uv.KeyKp1: "1", uv.KeyKp2: "2", uv.KeyKp3: "3", uv.KeyKp4: "4",
	uv.KeyKp5: "5", uv.KeyKp6: "6", uv.KeyKp7: "7", uv.KeyKp8: "8", uv.KeyKp9: "9",
	uv.KeyKpEnter: "\r", uv.KeyKpEqual: "=", uv.KeyKpMultiply: "*", uv.KeyKpPlus: "+",
	uv.KeyKpComma: ",", uv.KeyKpSep: ",", uv.KeyKpMinus: "-", uv.KeyKpDecimal: ".", uv.KeyKpDivide: "/",
}

// keypadNav maps the navigation keys of the keypad (kitty names) onto the
// ordinary keys for legacy encoding.
var keypadNav = map[rune]rune{
	uv.KeyKpUp: uv.KeyUp, uv.KeyKpDown: uv.KeyDown, uv.KeyKpLeft: uv.KeyLeft, uv.KeyKpRight: uv.KeyRight,
	uv.KeyKpPgUp: uv.KeyPgUp, uv.KeyKpPgDown: uv.KeyPgDown, uv.KeyKpHome: uv.KeyHome, uv.KeyKpEnd: uv.KeyEnd,
	uv.KeyKpInsert: uv.KeyInsert, uv.KeyKpDelete: uv.KeyDelete, uv.KeyKpBegin: uv.KeyBegin,
}

// encodeKey encodes one key press for a child in modes m.
func encodeKey(m Modes, k uv.Key) []byte {
	if m.KittyFlags&(kittyDisambiguate|kittyAllKeysAsEscapes) != 0 {
		return encodeKittyKey(m, k)
	}
	return encodeLegacyKey(m, k)
}

// encodeLegacyKey follows xterm: C0 for ctrl combinations, ESC prefix for
// alt, CSI/SS3 sequences with the xterm modifier parameter for special keys.
// Combinations that have no legacy byte, such as shift+enter, ctrl+tab or
// ctrl+1, get xterm's modifyOtherKeys form (CSI 27;m;code~) only when the
// child enabled modifyOtherKeys (CSI > 4 ; N m); any other child gets what a
// terminal without extended keys sends, and what tmux hands its panes: the
// key without the modifier it cannot express (enter, tab, "1"). A shell or
// REPL would otherwise print the sequence's tail as text.
func encodeLegacyKey(m Modes, k uv.Key) []byte {
	ext := m.OtherKeys > 0
	mod := k.Mod &^ (uv.ModCapsLock | uv.ModNumLock | uv.ModScrollLock)
	alt := mod&(uv.ModAlt|uv.ModMeta) != 0
	ctrl := mod&uv.ModCtrl != 0
	shift := mod&uv.ModShift != 0
	prefix := func(b []byte) []byte {
		if alt {
			return append([]byte{0x1b}, b...)
		}
		return b
	}
	code := k.Code
	if nav, ok := keypadNav[code]; ok {
		code = nav
	}

	switch code {
	case uv.KeyEnter:
		if (ctrl || shift) && ext {
			return modifyOtherKeys(xtermMod(mod), 13)
		}
		return prefix([]byte{'\r'})
	case uv.KeyTab:
		switch {
		case ctrl && ext:
			return modifyOtherKeys(xtermMod(mod), 9)
		case shift:
			return prefix([]byte("\x1b[Z"))
		}
		return prefix([]byte{'\t'})
	case uv.KeyBackspace:
		if ctrl {
			return prefix([]byte{0x08})
		}
		return prefix([]byte{0x7f})
	case uv.KeyEscape:
		return prefix([]byte{0x1b})
	}

	if a, ok := keypadApp[code]; ok {
		if m.AppKeypad && mod == 0 {
			return []byte{0x1b, 'O', a}
		}
		return prefix([]byte(keypadText[code]))
	}

	if fk, ok := funcKeys[code]; ok {
		return legacyFuncKey(m, fk, mod)
	}
	if code > unicode.MaxRune && code != uv.KeyExtended {
		// Media, lock and modifier keys have no legacy encoding.
		return nil
	}
	return legacyText(k, mod, alt, ctrl, shift, ext)
}

// legacyFuncKey encodes cursor, editing and function keys.
func legacyFuncKey(m Modes, fk funcKey, mod uv.KeyMod) []byte {
	xm := xtermMod(mod)
	if fk.num != 0 {
		if xm != 0 {
			return []byte("\x1b[" + strconv.Itoa(fk.num) + ";" + strconv.Itoa(xm) + "~")
		}
		return []byte("\x1b[" + strconv.Itoa(fk.num) + "~")
	}
	if xm != 0 {
		return []byte("\x1b[1;" + strconv.Itoa(xm) + string(fk.final))
	}
	if fk.ss3 || (fk.app && m.AppCursor) {
		return []byte{0x1b, 'O', fk.final}
	}
	return []byte{0x1b, '[', fk.final}
}

// legacyText encodes keys that type characters.
func legacyText(k uv.Key, mod uv.KeyMod, alt, ctrl, shift, ext bool) []byte {
	if ctrl {
		base := k.Code
		if shift && k.ShiftedCode != 0 {
			base = k.ShiftedCode
		}
		if c, ok := ctrlByte(base); ok {
			if alt {
				return []byte{0x1b, c}
			}
			return []byte{c}
		}
		if c, ok := ctrlByte(k.Code); ok {
			if alt {
				return []byte{0x1b, c}
			}
			return []byte{c}
		}
		// No C0 equivalent (ctrl+1, ctrl+é …): say exactly what was
		// pressed to a child that asked for it, else type the key.
		if ext {
			return modifyOtherKeys(xtermMod(mod), k.Code)
		}
	}
	text := k.Text
	if text == "" {
		switch {
		case k.Code > unicode.MaxRune || k.Code < 0x20 || k.Code == 0x7f || !utf8.ValidRune(k.Code):
			return nil
		case shift && k.ShiftedCode != 0:
			text = string(k.ShiftedCode)
		case shift:
			text = string(unicode.ToUpper(k.Code))
		default:
			text = string(k.Code)
		}
	}
	if alt {
		return append([]byte{0x1b}, text...)
	}
	return []byte(text)
}

// ctrlByte maps ctrl+<key> to its C0 byte the way xterm and the VT220 do.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= 'A' && r <= 'Z':
		return byte(r - 'A' + 1), true
	case r >= '[' && r <= '_': // [ \ ] ^ _
		return byte(r - '@'), true
	}
	switch r {
	case ' ', '@', '2':
		return 0x00, true
	case '3':
		return 0x1b, true
	case '4':
		return 0x1c, true
	case '5':
		return 0x1d, true
	case '6', '~':
		return 0x1e, true
	case '7', '/':
		return 0x1f, true
	case '8', '?':
		return 0x7f, true
	}
	return 0, false
}

func modifyOtherKeys(xm int, code rune) []byte {
	if xm == 0 {
		xm = 1
	}
	return []byte("\x1b[27;" + strconv.Itoa(xm) + ";" + strconv.Itoa(int(code)) + "~")
}

// kittyFuncCodes are the kitty protocol key numbers of keys that use the
// CSI code u form (keypad, lock, media, modifier keys and F13 upwards).
var kittyFuncCodes = func() map[rune]int {
	c := map[rune]int{
		uv.KeyCapsLock: 57358, uv.KeyScrollLock: 57359, uv.KeyNumLock: 57360,
		uv.KeyPrintScreen: 57361, uv.KeyPause: 57362, uv.KeyMenu: 57363,
	}
	for i := rune(0); i <= 63-13; i++ {
		if 57376+int(i) <= 57398 {
			c[uv.KeyF13+i] = 57376 + int(i)
		}
	}
	keypad := []rune{
		uv.KeyKp0, uv.KeyKp1, uv.KeyKp2, uv.KeyKp3, uv.KeyKp4, uv.KeyKp5, uv.KeyKp6, uv.KeyKp7,
		uv.KeyKp8, uv.KeyKp9, uv.KeyKpDecimal, uv.KeyKpDivide, uv.KeyKpMultiply, uv.KeyKpMinus,
		uv.KeyKpPlus, uv.KeyKpEnter, uv.KeyKpEqual, uv.KeyKpSep, uv.KeyKpLeft, uv.KeyKpRight,
		uv.KeyKpUp, uv.KeyKpDown, uv.KeyKpPgUp, uv.KeyKpPgDown, uv.KeyKpHome, uv.KeyKpEnd,
		uv.KeyKpInsert, uv.KeyKpDelete, uv.KeyKpBegin,
	}
	for i, r := range keypad {
		c[r] = 57399 + i
	}
	for r := uv.KeyMediaPlay; r <= uv.KeyMute; r++ {
		c[r] = 57428 + int(r-uv.KeyMediaPlay)
	}
	// The modifier keys are listed in a different order by the two sides.
	mods := []rune{
		uv.KeyLeftShift, uv.KeyLeftCtrl, uv.KeyLeftAlt, uv.KeyLeftSuper, uv.KeyLeftHyper, uv.KeyLeftMeta,
		uv.KeyRightShift, uv.KeyRightCtrl, uv.KeyRightAlt, uv.KeyRightSuper, uv.KeyRightHyper, uv.KeyRightMeta,
		uv.KeyIsoLevel3Shift, uv.KeyIsoLevel5Shift,
	}
	for i, r := range mods {
		c[r] = 57441 + i
	}
	c[uv.KeyKpComma] = 57416 // the keypad separator key
	return c
}()

// encodeKittyKey encodes a key press per the kitty keyboard protocol with the
// child's progressive-enhancement flags.
func encodeKittyKey(m Modes, k uv.Key) []byte {
	flags := m.KittyFlags
	all := flags&kittyAllKeysAsEscapes != 0
	mod := k.Mod
	if !all {
		mod &^= uv.ModCapsLock | uv.ModNumLock
	}
	mod &^= uv.ModScrollLock
	km := kittyMod(mod, flags)
	event := ""
	if flags&kittyEventTypes != 0 && k.IsRepeat {
		event = ":2"
	}

	if fk, ok := funcKeys[k.Code]; ok && k.Code < uv.KeyF13 {
		// Legacy functional keys keep their CSI/SS3 shapes.
		if km == 1 && event == "" && !all {
			return legacyFuncKey(m, fk, 0)
		}
		if fk.num != 0 {
			return []byte("\x1b[" + strconv.Itoa(fk.num) + kittyModField(km, event, true) + "~")
		}
		if fk.final == 'R' { // CSI R would read as a cursor position report
			return []byte("\x1b[13" + kittyModField(km, event, true) + "~")
		}
		if km == 1 && event == "" {
			return []byte{0x1b, '[', fk.final}
		}
		return []byte("\x1b[1" + kittyModField(km, event, true) + string(fk.final))
	}

	code, ok := kittyFuncCodes[k.Code]
	if ok {
		if code >= 57441 && !all { // bare modifier keys only in "report all"
			return nil
		}
		return kittyCSIu(code, "", km, event, "")
	}

	switch k.Code {
	case uv.KeyEnter, uv.KeyTab, uv.KeyBackspace:
		if km == 1 && event == "" && !all {
			return []byte{byte(k.Code)}
		}
		return kittyCSIu(int(k.Code), "", km, event, "")
	case uv.KeyEscape:
		return kittyCSIu(27, "", km, event, "")
	}
	if k.Code > unicode.MaxRune && k.Code != uv.KeyExtended {
		return nil
	}

	// Text-producing keys: plain (or shifted) text stays text unless the child
	// asked for every key as an escape code.
	textMods := mod &^ (uv.ModShift | uv.ModCapsLock | uv.ModNumLock)
	text := k.Text
	if text == "" && textMods == 0 && k.Code != uv.KeyExtended && k.Code >= 0x20 {
		text = string(k.Code)
		if mod&uv.ModShift != 0 {
			if k.ShiftedCode != 0 {
				text = string(k.ShiftedCode)
			} else {
				text = string(unicode.ToUpper(k.Code))
			}
		}
	}
	if !all && textMods == 0 {
		return []byte(text)
	}
	if k.Code == uv.KeyExtended {
		// Several runes (an IME commit): there is no single key to report.
		return []byte(k.Text)
	}
	key := k.Code
	if unicode.IsUpper(key) {
		key = unicode.ToLower(key)
	}
	alt := ""
	if flags&kittyAlternateKeys != 0 {
		shifted := ""
		if mod&uv.ModShift != 0 {
			s := k.ShiftedCode
			if s == 0 {
				s = unicode.ToUpper(key)
			}
			if s != key {
				shifted = strconv.Itoa(int(s))
			}
		}
		base := ""
		if k.BaseCode != 0 && k.BaseCode != key {
			base = strconv.Itoa(int(k.BaseCode))
		}
		switch {
		case base != "":
			alt = ":" + shifted + ":" + base
		case shifted != "":
			alt = ":" + shifted
		}
	}
	assoc := ""
	if all && flags&kittyAssociatedText != 0 && text != "" {
		cps := make([]string, 0, len(text))
		for _, r := range text {
			cps = append(cps, strconv.Itoa(int(r)))
		}
		assoc = strings.Join(cps, ":")
	}
	return kittyCSIu(int(key), alt, km, event, assoc)
}

// kittyModField renders ";mods[:event]", or nothing when both are default and
// omitting is allowed.
func kittyModField(km int, event string, omit bool) string {
	if omit && km == 1 && event == "" {
		return ""
	}
	return ";" + strconv.Itoa(km) + event
}

func kittyCSIu(code int, alt string, km int, event, text string) []byte {
	s := "\x1b[" + strconv.Itoa(code) + alt
	if text != "" {
		s += kittyModField(km, event, false) + ";" + text
	} else {
		s += kittyModField(km, event, true)
	}
	return []byte(s + "u")
}
