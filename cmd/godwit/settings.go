package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/godwit-crawler/godwit/internal/datadir"
)

// A crawl's settings are stored with its state (state/settings.yaml), so
// that `godwit crawl --data DIR` resumes the crawl as it was defined:
// proxy, delay, scope, limits, robots, URL rules and the rest. What was
// given explicitly on resume (a flag, a key of --config) overrides the
// stored value, is logged, and is stored in turn. docs/formats.md
// describes the file; docs/decisions.md says why YAML.

// settingsVersion is the version of the settings file's format.
const settingsVersion = 1

// notStored are the settings (config-file keys) that do not define the
// crawl, and are not stored: where its seeds come from (the seeds are in
// state/seeds.txt), the directory itself, how this process logs, uses
// memory, stops and is administered. The admin token is a secret: never
// stored. recrawl.revisit_share is kept by the frontier's store, where an
// operator's change at run time outlives a restart (README).
var notStored = map[string]bool{
	"seeds": true, "seeds_file": true, "skip_bad_seeds": true, "data": true,
	"log_level": true, "memory_limit": true, "grace": true,
	"admin": true, "admin_token": true,
	"recrawl.revisit_share": true,
}

// settingsFile is state/settings.yaml.
type settingsFile struct {
	Version int    `yaml:"version"`
	Godwit  string `yaml:"godwit"` // the version that wrote it
	// Created is when the crawl's first run started.
	Created time.Time `yaml:"created"`
	LastRun runRecord `yaml:"last_run"`
	// ProxyPasswordOmitted: the proxy URL had a password, which is not
	// stored; a resumed run must be given the proxy again.
	ProxyPasswordOmitted bool      `yaml:"proxy_password_omitted,omitempty"`
	Settings             yaml.Node `yaml:"settings"`
}

// runRecord is the last run of a crawl: its process and times. Ended is
// zero while it runs, and stays zero if the process was killed.
type runRecord struct {
	PID     int       `yaml:"pid" json:"pid"`
	Started time.Time `yaml:"started" json:"started"`
	Ended   time.Time `yaml:"ended,omitempty" json:"ended,omitzero"`
}

func (d dataDir) settingsPath() string { return filepath.Join(d.state(), datadir.SettingsFile) }

// readSettings reads the settings file; nil when there is none (a crawl
// made before godwit stored its settings).
func (d dataDir) readSettings() (*settingsFile, error) {
	b, err := os.ReadFile(d.settingsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f settingsFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %s", d.settingsPath(), oneLine(err.Error()))
	}
	if f.Version != settingsVersion {
		return nil, fmt.Errorf("%s: format version %d, this godwit reads %d", d.settingsPath(), f.Version, settingsVersion)
	}
	return &f, nil
}

// settings decodes the stored settings over the defaults.
func (f *settingsFile) settings(path string) (crawlSettings, error) {
	s := defaultSettings()
	b, err := yaml.Marshal(&f.Settings)
	if err != nil {
		return s, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("%s: %s", path, oneLine(err.Error()))
	}
	return s, nil
}

// saveSettings stores s as the crawl's settings and starts the run's
// record; close records its end.
func (d *lockedDir) saveSettings(s crawlSettings, now time.Time) error {
	f := &settingsFile{Created: now}
	if old, err := d.readSettings(); err == nil && old != nil {
		f.Created = old.Created
	}
	node, omitted := storedSettings(s)
	f.Version, f.Godwit, f.Settings, f.ProxyPasswordOmitted = settingsVersion, godwitVersion(), *node, omitted
	f.LastRun = runRecord{PID: os.Getpid(), Started: now}
	if err := d.writeSettings(f); err != nil {
		return err
	}
	d.run = f
	return nil
}

func (d *lockedDir) endRun() error {
	d.run.LastRun.Ended = time.Now().UTC().Truncate(time.Millisecond)
	return d.writeSettings(d.run)
}

func (d *lockedDir) writeSettings(f *settingsFile) error {
	if err := os.MkdirAll(d.state(), 0o755); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("# The settings of the crawl in this directory, written by godwit crawl and\n" +
		"# used when it resumes (docs/formats.md). Flags given on resume override them.\n")
	if err := yamlEncoder(&b).Encode(f); err != nil {
		return err
	}
	if err := datadir.WriteFile(d.settingsPath(), b.Bytes()); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}

// resumeSettings merges the stored settings of the crawl being resumed
// with what was given now: merge decodes the config file and applies the
// flags over the settings it is given. Each stored value overridden is
// logged. Without a settings file (a crawl from before they were stored)
// s stands as given.
func (d *lockedDir) resumeSettings(s crawlSettings, merge func(base crawlSettings) (crawlSettings, error), log *slog.Logger) (crawlSettings, error) {
	f, err := d.readSettings()
	if err != nil {
		return s, fmt.Errorf("resume: %w", err)
	}
	if f == nil {
		log.Info("the crawl has no stored settings (it was made by an earlier godwit); using the settings given now")
		return s, nil
	}
	stored, err := f.settings(d.settingsPath())
	if err != nil {
		return s, fmt.Errorf("resume: %w", err)
	}
	merged, err := merge(stored)
	if err != nil {
		return s, err
	}
	if f.ProxyPasswordOmitted && merged.Proxy == stored.Proxy {
		return s, fmt.Errorf("the crawl in %s used a proxy with a password, which godwit does not store; give --proxy again", d.dataDir)
	}
	now, _ := storedSettings(merged)
	before := flattenSettings(&f.Settings)
	after := flattenSettings(now)
	for _, kv := range after {
		if old, ok := lookupSetting(before, kv.key); !ok || old != kv.value {
			if !ok {
				old = "the default"
			}
			log.Warn(fmt.Sprintf("%s changed from %s to %s", kv.key, old, kv.value))
		}
	}
	for _, kv := range before {
		if _, ok := lookupSetting(after, kv.key); !ok {
			log.Warn(fmt.Sprintf("%s changed from %s to the default", kv.key, kv.value))
		}
	}
	return merged, nil
}

// storedSettings is the part of s that is stored, as a YAML mapping with
// the config file's keys, in the order of crawlSettings. Unset lists and
// pointers are left out, so that they stay unset when read back (an
// empty list means something else: url.strip_params: [] strips
// nothing). A proxy's password is left out; omitted says there was one.
func storedSettings(s crawlSettings) (node *yaml.Node, omitted bool) {
	if u, err := url.Parse(s.Proxy); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.User(u.User.Username())
			s.Proxy, omitted = u.String(), true
		}
	}
	return settingsNode(reflect.ValueOf(s), ""), omitted
}

func settingsNode(v reflect.Value, prefix string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if !sf.IsExported() || name == "" || name == "-" || notStored[prefix+name] {
			continue
		}
		fv := v.Field(i)
		var val *yaml.Node
		switch {
		case (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Map) && fv.IsNil():
			continue
		case fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeFor[time.Time]():
			val = settingsNode(fv, prefix+name+".")
		default:
			val = &yaml.Node{}
			if err := val.Encode(fv.Interface()); err != nil {
				continue // cannot happen with the types of crawlSettings
			}
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, val)
	}
	return n
}

// setting is one stored value: its dotted key and its YAML text.
type setting struct{ key, value string }

// flattenSettings lists the values of a settings mapping in order.
func flattenSettings(n *yaml.Node) []setting {
	var out []setting
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := prefix+n.Content[i].Value, n.Content[i+1]
			switch val.Kind {
			case yaml.MappingNode:
				walk(val, key+".")
			case yaml.SequenceNode:
				items := make([]string, len(val.Content))
				for j, c := range val.Content {
					items[j] = c.Value
				}
				out = append(out, setting{key, "[" + strings.Join(items, ", ") + "]"})
			default:
				v := val.Value
				if v == "" {
					v = `""`
				}
				out = append(out, setting{key, v})
			}
		}
	}
	walk(n, "")
	return out
}

func lookupSetting(list []setting, key string) (string, bool) {
	for _, s := range list {
		if s.key == key {
			return s.value, true
		}
	}
	return "", false
}

func yamlEncoder(w io.Writer) *yaml.Encoder {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	return enc
}
