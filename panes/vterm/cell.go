package vterm

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// cell is the stored form of a screen cell: 16 bytes, no pointers, so a
// screen is one flat allocation the garbage collector never scans.
//
// ch is a rune, 0 for a never-written blank, or graphemeFlag|index into the
// terminal's grapheme table for clusters of more than one rune.
// attr packs Attr (bits 0-7), the underline style (bits 8-10), the wide and
// wide-continuation flags, and an index into the extras table (underline
// colour and hyperlink) in bits 16-31.
type cell struct {
	ch   uint32
	fg   Color
	bg   Color
	attr uint32
}

const (
	graphemeFlag = 1 << 31

	attrMask     = 0xff
	ulShift      = 8
	ulMask       = 0x7 << ulShift
	flagWide     = 1 << 11
	flagWideCont = 1 << 12
	extraShift   = 16
	// styleMask selects what a cell carries besides its character and
	// width: what the pen stamps.
	styleMask = attrMask | ulMask | 0xffff<<extraShift
)

// blank reports whether c renders as a plain default space.
func (c cell) blank() bool {
	return (c.ch == 0 || c.ch == ' ') && c.fg == 0 && c.bg == 0 && c.attr == 0
}

func (c cell) extra() uint32 { return c.attr >> extraShift }

func (c cell) wide() bool { return c.attr&flagWide != 0 }

func (c cell) cont() bool { return c.attr&flagWideCont != 0 }

// extra is the rarely used part of a style, stored once per terminal and
// referenced by index from cells.
type extra struct {
	ul   Color
	link string
}

// maxExtras and maxGraphemes bound the side tables; beyond them new
// entries degrade (no underline colour/link, base rune only) instead of
// growing without limit.
const (
	maxExtras      = 1 << 16
	maxGraphemes   = 1 << 16
	maxExtrasBytes = 4 << 20 // total hyperlink bytes kept
)

// sideTables intern graphemes and style extras.
type sideTables struct {
	graphemes []string
	gindex    map[string]uint32
	extras    []extra
	eindex    map[extra]uint32
	ebytes    int
	// runeText caches the text of single-rune cells beyond ASCII, so
	// converting a row to public cells does not allocate a string per
	// cell; it is made on first use.
	runeText *[runeCacheSize]runeString
}

// runeCacheSize is the number of slots of the direct-mapped rune text
// cache: enough for the box drawing, arrows and bullets a pane shows.
const runeCacheSize = 256

type runeString struct {
	r uint32
	s string
}

// asciiText holds every ASCII character once: the text of an ASCII cell is
// a slice of it, which costs no allocation.
const asciiText = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f" +
	" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f"

// runeString returns the text of the single rune r.
func (s *sideTables) runeString(r uint32) string {
	if r < 0x80 {
		return asciiText[r : r+1]
	}
	if s.runeText == nil {
		s.runeText = new([runeCacheSize]runeString)
	}
	e := &s.runeText[r%runeCacheSize]
	if e.r != r || e.s == "" {
		e.r, e.s = r, string(rune(r))
	}
	return e.s
}

func (s *sideTables) internGrapheme(b []byte) (uint32, bool) {
	if i, ok := s.gindex[string(b)]; ok {
		return i | graphemeFlag, true
	}
	g := string(b)
	if len(s.graphemes) >= maxGraphemes {
		return 0, false
	}
	if s.gindex == nil {
		s.gindex = make(map[string]uint32)
	}
	i := uint32(len(s.graphemes))
	s.graphemes = append(s.graphemes, g)
	s.gindex[g] = i
	return i | graphemeFlag, true
}

// internExtra returns the index of e; 0 means "none".
func (s *sideTables) internExtra(e extra) uint32 {
	if e == (extra{}) {
		return 0
	}
	if i, ok := s.eindex[e]; ok {
		return i
	}
	if s.eindex == nil {
		s.eindex = make(map[extra]uint32)
		s.extras = append(s.extras, extra{}) // index 0 is "none"
	}
	if len(s.extras) >= maxExtras || s.ebytes+len(e.link) > maxExtrasBytes {
		return 0
	}
	s.ebytes += len(e.link)
	i := uint32(len(s.extras))
	s.extras = append(s.extras, e)
	s.eindex[e] = i
	return i
}

func (s *sideTables) extraOf(c cell) extra {
	i := c.extra()
	if i == 0 || int(i) >= len(s.extras) {
		return extra{}
	}
	return s.extras[i]
}

// content returns the text of a cell ("" for the right half of a wide char).
func (s *sideTables) content(c cell) string {
	if c.cont() {
		return ""
	}
	if c.ch == 0 {
		return " "
	}
	if c.ch&graphemeFlag != 0 {
		i := c.ch &^ graphemeFlag
		if int(i) < len(s.graphemes) {
			return s.graphemes[i]
		}
		return " "
	}
	return s.runeString(c.ch)
}

// lastRune returns the last rune of a cell's text.
func (s *sideTables) lastRune(c cell) rune {
	if c.ch&graphemeFlag == 0 {
		return rune(c.ch)
	}
	g := s.content(c)
	r, _ := utf8.DecodeLastRuneInString(g)
	return r
}

// firstRune returns the first rune of a cell's text.
func (s *sideTables) firstRune(c cell) rune {
	if c.ch&graphemeFlag == 0 {
		return rune(c.ch)
	}
	r, _ := utf8.DecodeRuneInString(s.content(c))
	return r
}

// appendContent appends a cell's text to b without allocating.
func (s *sideTables) appendContent(b []byte, c cell) []byte {
	if c.cont() {
		return b
	}
	switch {
	case c.ch == 0:
		return append(b, ' ')
	case c.ch < 0x80:
		return append(b, byte(c.ch))
	case c.ch&graphemeFlag != 0:
		i := c.ch &^ graphemeFlag
		if int(i) < len(s.graphemes) {
			return append(b, s.graphemes[i]...)
		}
		return append(b, ' ')
	}
	return appendRune(b, rune(c.ch))
}

// vs16 is VARIATION SELECTOR-16, which asks for emoji presentation.
const vs16 = "\ufe0f"

// appendShown appends the text the outer terminal is given for a cell. A
// one-column cell holding a symbol with VS16 (put there for a program that
// measures per character, which counts VS16 as nothing) goes out without
// the selector: a terminal that honours VS16 would draw it two columns
// wide and shift the rest of the row.
func (s *sideTables) appendShown(b []byte, c cell) []byte {
	n := len(b)
	b = s.appendContent(b, c)
	if c.ch&graphemeFlag == 0 || c.wide() || !bytes.Contains(b[n:], []byte(vs16)) {
		return b
	}
	shown := strings.ReplaceAll(string(b[n:]), vs16, "")
	return append(b[:n], shown...)
}

// shown is appendShown as a string.
func (s *sideTables) shown(c cell) string {
	if c.ch&graphemeFlag == 0 || c.wide() {
		return s.content(c)
	}
	return strings.ReplaceAll(s.content(c), vs16, "")
}

func appendRune(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		return append(b, byte(r))
	case r < 0x800:
		return append(b, byte(0xC0|r>>6), byte(0x80|r&0x3F))
	case r < 0x10000:
		return append(b, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return append(b, byte(0xF0|r>>18), byte(0x80|(r>>12)&0x3F), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
}

// publicCell converts a stored cell to the exported form.
func (s *sideTables) publicCell(c cell) Cell {
	if c.attr&^attrMask == 0 && c.ch&graphemeFlag == 0 {
		// The common case: one rune, width 1, no extras.
		if c.ch == 0 {
			return Cell{Content: " ", Width: 1, Fg: c.fg, Bg: c.bg, Attrs: Attr(c.attr)}
		}
		return Cell{Content: s.runeString(c.ch), Width: 1, Fg: c.fg, Bg: c.bg, Attrs: Attr(c.attr)}
	}
	e := s.extraOf(c)
	w := 1
	switch {
	case c.cont():
		w = 0
	case c.wide():
		w = 2
	}
	return Cell{
		Content: s.shown(c),
		Width:   w,
		Fg:      c.fg,
		Bg:      c.bg,
		Ul:      e.ul,
		Attrs:   Attr(c.attr & attrMask),
		UlStyle: UnderlineStyle((c.attr & ulMask) >> ulShift),
		Link:    e.link,
	}
}
