package admin

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The client sends the token and the JSON body, and answers an error
// status with an *APIError carrying the server's code and message.
func TestClientDo(t *testing.T) {
	var gotAuth, gotBody, gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		gotQuery = r.URL.RawQuery
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		switch r.URL.Path {
		case "/ok":
			io.WriteString(w, `{"fine":true}`)
		case "/coded":
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"code":"unauthorized","message":"no token"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	base, _ := url.Parse(srv.URL + "/ignored")
	c := NewClient(base, "tok")
	data, err := c.Do(t.Context(), http.MethodPost, "/ok", url.Values{"a": {"b"}}, map[string]int{"n": 1})
	if err != nil || string(data) != `{"fine":true}` {
		t.Fatalf("Do(/ok) = %q, %v", data, err)
	}
	var body map[string]int
	if gotAuth != "Bearer tok" || gotQuery != "a=b" || json.Unmarshal([]byte(gotBody), &body) != nil || body["n"] != 1 {
		t.Errorf("the server saw Authorization %q, query %q, body %q", gotAuth, gotQuery, gotBody)
	}
	_, err = c.Do(t.Context(), http.MethodGet, "/coded", nil, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 401 || err.Error() != "admin API: unauthorized: no token" {
		t.Errorf("Do(/coded) = %v, want an APIError with the server's message", err)
	}
	_, err = c.Do(t.Context(), http.MethodGet, "/missing", nil, nil)
	if !errors.As(err, &ae) || err.Error() != "admin API: GET /missing: 404 Not Found" {
		t.Errorf("Do(/missing) = %v, want the status", err)
	}
}

func TestClientUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := NewClient(&url.URL{Scheme: "http", Host: addr}, "")
	_, err = c.Do(t.Context(), http.MethodGet, "/api/status", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "admin server at "+addr+" unreachable") {
		t.Errorf("Do to a closed port = %v, want it to say the server is unreachable", err)
	}
}
