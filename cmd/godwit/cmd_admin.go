package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/godwit-crawler/godwit/internal/admin"
)

// The admin commands are clients of a running crawl's admin API
// (internal/admin, whose admin.Client speaks it): status (cmd_status.go),
// seeds add (cmd_seeds.go), hosts (cmd_hosts.go), pause and resume
// (cmd_pause.go), recrawl share (cmd_recrawl.go) and urls (cmd_urls.go).
// This file holds what they share: the --admin, --admin-token and --json
// flags and the client's errors as exit statuses.

// adminFlags are the flags every admin client command takes.
type adminFlags struct {
	addr  string
	token string
	json  bool
}

func (f *adminFlags) register(cmd *cobra.Command) {
	flagClientAdmin.stringVar(cmd.Flags(), &f.addr, defaultAdmin)
	flagClientAdminToken.stringVar(cmd.Flags(), &f.token, "")
	flagClientJSON.boolVar(cmd.Flags(), &f.json, false)
}

// adminClient talks to one admin server (admin.Client), its errors
// failures (exit 1).
type adminClient struct{ c *admin.Client }

func (f *adminFlags) client() (*adminClient, error) {
	raw := f.addr
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("--admin %q: want host:port or http://host:port", f.addr)
	}
	if u.Port() == "" {
		return nil, fmt.Errorf("--admin %q: no port", f.addr)
	}
	token := f.token
	if token == "" {
		token = os.Getenv("GODWIT_ADMIN_TOKEN")
	}
	return &adminClient{admin.NewClient(u, token)}, nil
}

// call sends one request; body, when not nil, is sent as JSON. It returns
// the answer's body on success, and a failure (exit 1) when the server is
// unreachable or answers an error.
func (c *adminClient) call(ctx context.Context, method, path string, query url.Values, body any) ([]byte, error) {
	data, err := c.c.Do(ctx, method, path, query, body)
	if err != nil {
		var ae *admin.APIError
		if errors.As(err, &ae) && ae.Message != "" && ae.StatusCode == http.StatusUnauthorized {
			err = fmt.Errorf("%w (set --admin-token or GODWIT_ADMIN_TOKEN)", err)
		}
		return nil, failure{err}
	}
	return data, nil
}

// get decodes the answer of a GET into v, or prints it as is with --json.
func (c *adminClient) get(cmd *cobra.Command, f *adminFlags, path string, query url.Values, v any) (printed bool, err error) {
	data, err := c.call(cmd.Context(), http.MethodGet, path, query, nil)
	if err != nil {
		return false, err
	}
	if f.json {
		_, err := cmd.OutOrStdout().Write(data)
		return true, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, failure{fmt.Errorf("admin API: %s: bad answer: %w", path, err)}
	}
	return false, nil
}

// action POSTs (or PUTs, DELETEs) and prints done unless --json.
func (c *adminClient) action(cmd *cobra.Command, f *adminFlags, method, path string, body any, done string) error {
	data, err := c.call(cmd.Context(), method, path, nil, body)
	if err != nil {
		return err
	}
	if f.json {
		_, err := cmd.OutOrStdout().Write(data)
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), done)
	return nil
}
