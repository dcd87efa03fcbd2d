package sitemap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// runText reads a text sitemap: one URL per line (LF or CRLF), white space
// around it trimmed. Only lines starting with http:// or https:// (any
// case) and at most maxURLBytes long are entries; other non-blank lines
// are counted in Result.Skipped. A file with no entry at all is not a text
// sitemap (a robots.txt, an error page in plain text): ErrMalformed.
//
// Lines are read with ReadSlice, so a long line is skipped piece by piece
// without ever being held whole.
func (p *parser) runText() error {
	p.res.Kind = Text
	br := p.in.br
	long := false // inside a line longer than the buffer
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = true
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		// A last line without a newline cut by MaxBytes may be a cut URL.
		cut := err == io.EOF && p.in.truncated()
		if long {
			long = false
			p.res.Skipped++
		} else if v := bytes.TrimSpace(line); len(v) > 0 && !cut {
			if len(v) <= maxURLBytes && hasHTTPPrefix(v) {
				if err := p.emit(Entry{URL: string(v), Priority: -1}); err != nil {
					return err
				}
			} else {
				p.res.Skipped++
			}
		}
		if err == io.EOF {
			break
		}
	}
	if p.res.Entries == 0 && !p.in.truncated() {
		return fmt.Errorf("%w: text without an http(s) URL line", ErrMalformed)
	}
	return nil
}

func hasHTTPPrefix(v []byte) bool {
	return len(v) > 7 && bytes.EqualFold(v[:7], []byte("http://")) ||
		len(v) > 8 && bytes.EqualFold(v[:8], []byte("https://"))
}
