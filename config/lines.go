package config

import (
	"strconv"
	"strings"
)

// scanLines maps every key path defined in a TOML document to the line it
// is defined on. The TOML library keeps positions private, so this small
// scanner follows table headers, [[array]] tables (whose entries get index
// segments, as in the merger), dotted keys, and skips the inside of
// multi-line strings and arrays. Keys inside inline tables are not
// recorded; lookups fall back to the enclosing key's line.
func scanLines(doc string) map[string]int {
	out := map[string]int{}
	record := func(path []string, line int) {
		k := strings.Join(path, ".")
		if _, ok := out[k]; !ok {
			out[k] = line
		}
	}
	arrays := map[string]int{} // array table path -> entries seen
	resolve := func(segs []string) []string {
		var res []string
		for _, s := range segs {
			res = append(res, s)
			if n, ok := arrays[strings.Join(res, ".")]; ok {
				res = append(res, strconv.Itoa(n-1))
			}
		}
		return res
	}
	var table []string
	var st valueState
	for i, line := range strings.Split(doc, "\n") {
		lineNo := i + 1
		if st.pending() {
			st.feed(line)
			continue
		}
		t := strings.TrimSpace(stripComment(line))
		switch {
		case t == "":
		case strings.HasPrefix(t, "[["):
			segs := splitKey(strings.TrimSuffix(strings.TrimPrefix(t, "[["), "]]"))
			if len(segs) == 0 {
				continue
			}
			parent := resolve(segs[:len(segs)-1])
			base := append(parent, segs[len(segs)-1])
			bk := strings.Join(base, ".")
			n := arrays[bk]
			arrays[bk] = n + 1
			record(base, lineNo)
			table = append(append([]string(nil), base...), strconv.Itoa(n))
			record(table, lineNo)
		case strings.HasPrefix(t, "["):
			table = resolve(splitKey(strings.TrimSuffix(strings.TrimPrefix(t, "["), "]")))
			record(table, lineNo)
		default:
			eq := indexOutsideQuotes(t, '=')
			if eq < 0 {
				continue
			}
			full := append(append([]string(nil), table...), splitKey(t[:eq])...)
			record(full, lineNo)
			st.feed(t[eq+1:])
		}
	}
	return out
}

// valueState tracks whether a value continues on the next lines: an open
// multi-line string or unbalanced brackets.
type valueState struct {
	depth int    // open [ and { outside strings
	multi string // the open multi-line string delimiter, if any
}

func (s *valueState) pending() bool { return s.depth > 0 || s.multi != "" }

func (s *valueState) feed(text string) {
	for i := 0; i < len(text); i++ {
		if s.multi != "" {
			if strings.HasPrefix(text[i:], s.multi) {
				i += len(s.multi) - 1
				s.multi = ""
			}
			continue
		}
		switch c := text[i]; c {
		case '#':
			return
		case '"', '\'':
			delim := string([]byte{c, c, c})
			if strings.HasPrefix(text[i:], delim) {
				s.multi = delim
				i += 2
				continue
			}
			// A one-line string: skip to its end.
			for i++; i < len(text) && text[i] != c; i++ {
				if c == '"' && text[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			s.depth++
		case ']', '}':
			if s.depth > 0 {
				s.depth--
			}
		}
	}
}

// stripComment removes a trailing # comment that is not inside quotes.
func stripComment(line string) string {
	if i := indexOutsideQuotes(line, '#'); i >= 0 {
		return line[:i]
	}
	return line
}

func indexOutsideQuotes(s string, target byte) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == target:
			return i
		}
	}
	return -1
}

// splitKey splits a dotted TOML key into its unquoted segments.
func splitKey(k string) []string {
	var segs []string
	for {
		k = strings.TrimSpace(k)
		if k == "" {
			return segs
		}
		dot := indexOutsideQuotes(k, '.')
		seg := k
		if dot >= 0 {
			seg = k[:dot]
		}
		seg = strings.TrimSpace(seg)
		if len(seg) >= 2 && (seg[0] == '"' || seg[0] == '\'') && seg[len(seg)-1] == seg[0] {
			if seg[0] == '"' {
				if u, err := strconv.Unquote(seg); err == nil {
					seg = u
				} else {
					seg = seg[1 : len(seg)-1]
				}
			} else {
				seg = seg[1 : len(seg)-1]
			}
		}
		segs = append(segs, seg)
		if dot < 0 {
			return segs
		}
		k = k[dot+1:]
	}
}
