package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Client talks to one admin server: the client side of the API this
// package serves (godwit status, hosts, seeds add, pause, ...). It is safe
// for concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// NewClient returns a client of the admin server at base (scheme and
// host; the path is ignored), sending token as a bearer token unless it
// is empty. Each request times out after 15 seconds.
func NewClient(base *url.URL, token string) *Client {
	u := *base
	u.Path = ""
	return &Client{base: &u, token: token, http: &http.Client{Timeout: 15 * time.Second}}
}

// APIError is an error answer of the admin API (a status of 300 or more).
type APIError struct {
	Method, Path string
	StatusCode   int
	Status       string // "404 Not Found"
	// Code and Message are the answer's ErrorBody; empty if it had none.
	Code, Message string
}

func (e *APIError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("admin API: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("admin API: %s %s: %s", e.Method, e.Path, e.Status)
}

// Do sends one request; body, when not nil, is sent as JSON. It returns
// the answer's body on success; an *APIError when the server answers an
// error; and an error naming the server when it cannot be reached.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body any) ([]byte, error) {
	u := *c.base
	u.Path = path
	u.RawQuery = query.Encode()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("admin server at %s unreachable: %w (is a crawl with its admin server running there?)", c.base.Host, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("admin server at %s: reading the answer: %w", c.base.Host, err)
	}
	if resp.StatusCode >= 300 {
		ae := &APIError{Method: method, Path: path, StatusCode: resp.StatusCode, Status: resp.Status}
		var e ErrorBody
		if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
			ae.Code, ae.Message = e.Error.Code, e.Error.Message
		}
		return nil, ae
	}
	return data, nil
}
