package process

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ProtocolError is an external processor's line that is not an answer:
// Mistake says why, in words ("its answers carry no \"id\"").
type ProtocolError struct {
	Processor, Mistake string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("processor %s: %s; see docs/processors.md", e.Processor, e.Mistake)
}

// Request is one line sent to an external processor.
type Request struct {
	ID          uint64              `json:"id"`
	URL         string              `json:"url"`
	Status      int                 `json:"status"`
	ContentType string              `json:"content_type,omitempty"`
	Header      map[string][]string `json:"header,omitempty"`
	Title       string              `json:"title,omitempty"`
	Links       []string            `json:"links,omitempty"`
	SimHash     string              `json:"simhash,omitempty"` // 16 hex digits
	Body        string              `json:"body,omitempty"`    // UTF-8 HTML
}

// Answer is one line an external processor writes back. Annotation
// values are any JSON: strings, numbers, booleans, null, arrays, objects.
type Answer struct {
	ID          uint64                     `json:"id"`
	Annotations map[string]json.RawMessage `json:"annotations,omitempty"`
	Links       []string                   `json:"links,omitempty"`
	SkipLinks   bool                       `json:"skip_links,omitempty"`
	Error       string                     `json:"error,omitempty"`
}

// reply is what the reader hands the page waiting for an answer.
type reply struct {
	a   Answer
	err error // a *ProtocolError, or ErrBroken
}

// verdict is the Verdict of a's annotations, links and skip_links.
func (a Answer) verdict() Verdict {
	v := Verdict{Links: a.Links, SkipLinks: a.SkipLinks}
	for k, raw := range a.Annotations {
		var s string
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &s) == nil {
			if v.Annotations == nil {
				v.Annotations = map[string]string{}
			}
			v.Annotations[k] = s
			continue
		}
		if v.Values == nil {
			v.Values = map[string]json.RawMessage{}
		}
		v.Values[k] = raw
	}
	return v
}

// parsed is one line read from a child.
type parsed struct {
	Answer
	object bool // a JSON object
}

// parseAnswer reads one answer line. A line out of protocol has a
// mistake, in words (and the id it carries, if any).
func parseAnswer(line []byte) (parsed, string) {
	var a Answer
	err := json.Unmarshal(line, &a)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "id":
		return parsed{object: true}, fmt.Sprintf(`the "id" of its answers is a JSON %s, not the request's number`, te.Value)
	case errors.As(err, &te) && te.Field != "":
		var id struct {
			ID uint64 `json:"id"`
		}
		json.Unmarshal(line, &id)
		if id.ID == 0 {
			return parsed{object: true}, `its answers carry no "id"`
		}
		return parsed{Answer{ID: id.ID}, true}, fmt.Sprintf("the %q of its answers is a JSON %s, not what the protocol says", te.Field, te.Value)
	case err != nil:
		return parsed{}, "its answers are not JSON objects, one a line"
	case a.ID == 0:
		return parsed{object: true}, `its answers carry no "id"`
	}
	return parsed{a, true}, ""
}

// readLine reads one line of at most max bytes (without its newline).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := r.ReadLine()
		line = append(line, part...)
		if len(line) > max {
			return nil, fmt.Errorf("answer line over %d bytes", max)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
