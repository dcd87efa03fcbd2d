package admin

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOpenAPI: the document parses, documents every route the mux serves
// and nothing else, and every reference in it resolves.
func TestOpenAPI(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", v)
	}
	s, err := New(&fakeBackend{}, Options{Addr: "127.0.0.1:7070"})
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, rt := range s.routes {
		// Mux patterns to OpenAPI paths: "/{$}" is "/", "{x...}" is "{x}".
		p := strings.ReplaceAll(strings.ReplaceAll(rt.path, "{$}", ""), "...}", "}")
		served[strings.ToLower(rt.method)+" "+p] = true
	}
	documented := map[string]bool{}
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		for method, op := range item.(map[string]any) {
			documented[method+" "+p] = true
			o := op.(map[string]any)
			if _, ok := o["responses"].(map[string]any)["200"]; !ok {
				if _, ok := o["responses"].(map[string]any)["204"]; !ok {
					t.Errorf("%s %s documents no success response", method, p)
				}
			}
			// Every {param} of the path is a declared path parameter.
			for _, seg := range strings.Split(p, "/") {
				if name, ok := strings.CutPrefix(seg, "{"); ok {
					name = strings.TrimSuffix(name, "}")
					if !declares(doc, o["parameters"], name) {
						t.Errorf("%s %s: path parameter %s not declared", method, p, name)
					}
				}
			}
		}
	}
	for k := range served {
		if !documented[k] {
			t.Errorf("route %s is served but not in openapi.json", k)
		}
	}
	for k := range documented {
		if !served[k] {
			t.Errorf("openapi.json documents %s, which the server does not serve", k)
		}
	}
	// References resolve.
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if !resolves(doc, ref) {
					t.Errorf("$ref %q does not resolve", ref)
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	// The error envelope's codes are the server's.
	codes := []string{}
	for _, c := range errorCodes {
		codes = append(codes, c)
	}
	env := mustJSON(t, doc["components"].(map[string]any)["schemas"].(map[string]any)["ErrorBody"])
	for _, c := range codes {
		if !strings.Contains(string(env), `"`+c+`"`) {
			t.Errorf("ErrorBody schema lacks code %q", c)
		}
	}
}

func resolves(doc map[string]any, ref string) bool {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	var v any = doc
	for _, part := range strings.Split(p, "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// declares reports whether params (an operation's parameters, possibly
// $refs) include the path parameter name.
func declares(doc map[string]any, params any, name string) bool {
	list, _ := params.([]any)
	for _, p := range list {
		m, _ := p.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			m = lookup(doc, ref)
		}
		if m["name"] == name && m["in"] == "path" && m["required"] == true {
			return true
		}
	}
	return false
}

func lookup(doc map[string]any, ref string) map[string]any {
	var v any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := v.(map[string]any)
		v = m[part]
	}
	m, _ := v.(map[string]any)
	return m
}
