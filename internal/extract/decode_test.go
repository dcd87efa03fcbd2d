package extract

import (
	"bytes"
	"testing"

	"golang.org/x/text/transform"
)

// TestASCIIIdentity checks what charset.asciiIdentity assumes: when it
// says an encoding decodes a body to itself, it does, on ASCII of every
// byte (ISO-2022-JP's escapes and shifts included) and on non-ASCII; and
// it says so of plain ASCII in every encoding but UTF-16 and
// replacement.
func TestASCIIIdentity(t *testing.T) {
	var plain []byte
	for b := range 0x80 {
		if b != 0x0e && b != 0x0f && b != 0x1b {
			plain = append(plain, byte(b))
		}
	}
	plain = append(plain, "<a href=/x?q=1&amp;r=2>\\~"...)
	bodies := [][]byte{plain, []byte("caf\xe9"), []byte("a\x1b$B0!\x1b(Bb"), []byte("a\x0eb\x0fc"), []byte("\x1b(J\\~"), []byte("\x1b")}
	for _, label := range []string{"utf-8", "windows-1252", "iso-8859-2", "iso-8859-8-i", "koi8-r", "macintosh", "x-mac-cyrillic",
		"windows-874", "windows-1250", "windows-1258", "ibm866", "gbk", "gb18030", "big5", "euc-jp", "iso-2022-jp", "shift_jis",
		"euc-kr", "x-user-defined", "utf-16le", "utf-16be", "replacement"} {
		name, enc, ok := lookup(label)
		if !ok {
			t.Fatalf("no encoding %q", label)
		}
		c := charset{name: name, enc: enc}
		for _, body := range bodies {
			got, _, _ := transform.Bytes(enc.NewDecoder(), body)
			if c.asciiIdentity(body) && !bytes.Equal(got, body) {
				t.Errorf("%s: asciiIdentity(%q) = true, but it decodes to %q", name, body, got)
			}
		}
		if want := name != "utf-16le" && name != "utf-16be" && name != "replacement"; c.asciiIdentity(plain) != want {
			t.Errorf("%s: asciiIdentity of plain ASCII = %v, want %v", name, c.asciiIdentity(plain), want)
		}
	}
}
