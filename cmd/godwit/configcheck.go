package main

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// renamedKeys are config keys that changed name: old → new. The old name
// is still read, with a warning.
var renamedKeys = map[string]string{
	"max_body_bytes": "max_body", // the flag is --max-body
}

// checkConfig reads a config file's YAML the way a person wrote it, before
// it is decoded into crawlSettings: it names the key and the value at
// fault in words ("delay: "5" is not a duration (e.g. 5s, 200ms)"),
// never in Go's types; and it renames the keys of renamedKeys, returning
// a warning for each.
func checkConfig(doc *yaml.Node) (warnings []string, err error) {
	if doc.Kind == 0 { // an empty file
		return nil, nil
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, nil
		}
		doc = doc.Content[0]
	}
	if doc.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(doc.Content); i += 2 {
			k := doc.Content[i]
			newName, ok := renamedKeys[k.Value]
			if !ok {
				continue
			}
			for j := 0; j+1 < len(doc.Content); j += 2 {
				if doc.Content[j].Value == newName {
					return nil, fmt.Errorf("line %d: %s is the old name of %s: give one of them", k.Line, k.Value, newName)
				}
			}
			warnings = append(warnings, fmt.Sprintf("config key %s is now called %s (line %d); the old name will go", k.Value, newName, k.Line))
			k.Value = newName
		}
	}
	return warnings, checkNode("", doc, reflect.TypeFor[crawlSettings]())
}

var durationType = reflect.TypeFor[time.Duration]()

// checkNode checks that n can hold a value of type t; path names it.
func checkNode(path string, n *yaml.Node, t reflect.Type) error {
	if n.Kind == yaml.AliasNode || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil
	}
	where := func() string { return fmt.Sprintf("line %d: %s", n.Line, path) }
	scalar := func(what, example string) error {
		shown := n.Value
		if n.Kind != yaml.ScalarNode {
			shown = "a " + kindName(n.Kind)
		} else if n.Tag == "!!str" || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			shown = strconv.Quote(n.Value)
		}
		return fmt.Errorf("%s: %s is not %s (e.g. %s)", where(), shown, what, example)
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return scalar("a duration", "5s, 200ms, 1h30m")
		}
		if _, err := time.ParseDuration(n.Value); err != nil {
			return scalar("a duration", "5s, 200ms, 1h30m")
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: want a mapping of %s, not a %s", where(), strings.Join(yamlKeys(t), ", "), kindName(n.Kind))
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if f.IsExported() && name != "" && name != "-" {
				fields[name] = f.Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub := k.Value
			if path != "" {
				sub = path + "." + k.Value
			}
			ft, ok := fields[k.Value]
			if !ok {
				return fmt.Errorf("line %d: unknown key %s (known here: %s)", k.Line, sub, strings.Join(yamlKeys(t), ", "))
			}
			if err := checkNode(sub, v, ft); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s: want a list, not a %s", where(), kindName(n.Kind))
		}
		for i, e := range n.Content {
			if err := checkNode(fmt.Sprintf("%s[%d]", path, i), e, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			return scalar("a whole number", "3, 1000")
		}
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
			return scalar("a number", "0.3, 2")
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return scalar("true or false", "true, false")
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s: want a single value, not a %s", where(), kindName(n.Kind))
		}
	}
	return nil
}

// yamlKeys lists the config keys of a settings struct, sorted.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
	return keys
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// yamlSyntaxError rewords a YAML parser error: "line 2: not valid YAML:
// mapping values are not allowed in this context".
func yamlSyntaxError(err error) string {
	msg := oneLine(strings.TrimPrefix(err.Error(), "yaml: "))
	if line, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(line, "line ") {
		return line + ": not valid YAML: " + rest
	}
	return "not valid YAML: " + msg
}
