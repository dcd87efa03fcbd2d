package extract

import (
	"bytes"
	"testing"

	"golang.org/x/text/transform"
)

// TestASCIIIdentity checks what charset.asciiIdentity assumes: every
// encoding but UTF-16 and replacement decodes the ASCII bytes it lets
// through to themselves.
func TestASCIIIdentity(t *testing.T) {
	var ascii []byte
	for b := range 0x80 {
		if b != 0x0e && b != 0x0f && b != 0x1b {
			ascii = append(ascii, byte(b))
		}
	}
	ascii = append(ascii, "<a href=/x?q=1&amp;r=2>\\~"...)
	for _, label := range []string{"utf-8", "windows-1252", "iso-8859-2", "iso-8859-8-i", "koi8-r", "macintosh", "x-mac-cyrillic",
		"windows-874", "windows-1250", "windows-1258", "ibm866", "gbk", "gb18030", "big5", "euc-jp", "iso-2022-jp", "shift_jis",
		"euc-kr", "x-user-defined", "utf-16le", "utf-16be", "replacement"} {
		name, enc, ok := lookup(label)
		if !ok {
			t.Fatalf("no encoding %q", label)
		}
		c := charset{name: name, enc: enc}
		got, _, _ := transform.Bytes(enc.NewDecoder(), ascii)
		if identity := bytes.Equal(got, ascii); c.asciiIdentity(ascii) != identity {
			t.Errorf("%s: asciiIdentity = %v, but decoding ASCII gives it back: %v", name, c.asciiIdentity(ascii), identity)
		}
		if c.asciiIdentity([]byte("caf\xe9")) {
			t.Errorf("%s: asciiIdentity of a non-ASCII body", name)
		}
	}
}
