package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/godwit-crawler/godwit/internal/datadir"
	"github.com/godwit-crawler/godwit/internal/frontier"
	"github.com/godwit-crawler/godwit/internal/warc"
)

// dirStatus is what `godwit status --data DIR` reports: what the data
// directory says about its crawl, with no crawl running needed.
type dirStatus struct {
	Data    string `json:"data"`
	Running bool   `json:"running"`
	// PID is the running crawl's process.
	PID     int        `json:"pid,omitempty"`
	Created time.Time  `json:"created,omitzero"`
	LastRun *runRecord `json:"last_run,omitempty"`
	// Progress is read from the crawl's store, which only a stopped
	// crawl's can be (a running crawl's admin API has it: godwit status).
	Progress *frontier.Summary `json:"progress,omitempty"`
	// ProgressError says why the store could not be read.
	ProgressError string `json:"progress_error,omitempty"`
	WARC          struct {
		Files int   `json:"files"` // complete WARC files
		Open  int   `json:"open"`  // being written, or left by a crash
		Bytes int64 `json:"bytes"`
	} `json:"warc"`
	// Settings are the stored settings (dotted config-file keys), with
	// the value the crawl runs with for those left at their default;
	// Defaults lists those.
	Settings     map[string]string `json:"settings,omitempty"`
	Defaults     []string          `json:"defaults,omitempty"`
	settingsYAML string
	settingsPath string
}

// dataStatus reads the status of the crawl in dir. While no crawl runs
// there it holds the directory's lock, so that none starts while it
// reads the store; while one runs, the store is the crawl's (Pebble
// admits one process), and only the settings and files are read.
func dataStatus(dir string) (dirStatus, error) {
	st := dirStatus{Data: dir}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return st, fmt.Errorf("--data %s: no such directory", dir)
	}
	c, err := datadir.Inspect(dir)
	if err != nil {
		return st, failure{err}
	}
	if !c.Crawl && !c.WARC {
		return st, fmt.Errorf("--data %s holds no godwit crawl", dir)
	}
	l, err := datadir.Acquire(dir)
	if busy := (*datadir.BusyError)(nil); errors.As(err, &busy) {
		st.Running, st.PID = true, busy.PID
	} else if err != nil {
		return st, failure{err}
	} else {
		defer l.Release()
	}
	d := dataDir(dir)
	f, err := d.readSettings()
	if err != nil {
		return st, failure{err}
	}
	if f != nil {
		st.Created, st.LastRun = f.Created, &f.LastRun
		st.settingsPath = d.settingsPath()
		shown := &f.Settings
		// The settings a crawl stores keep a zero for "the default"; show
		// the value it runs with, marked so.
		if stored, err := f.settings(d.settingsPath()); err == nil {
			shown, _ = storedSettings(effectiveSettings(stored))
			markDefaults(shown, &f.Settings, "", &st.Defaults)
			// A crawl without a store or a cluster shows no such
			// section rather than a column of empty values.
			if stored.Store.URL == "" {
				dropKey(shown, "store")
			}
			if stored.Cluster.URL == "" {
				dropKey(shown, "cluster")
			}
		}
		st.Settings = map[string]string{}
		for _, kv := range flattenSettings(shown) {
			st.Settings[kv.key] = kv.value
		}
		var b strings.Builder
		enc := yamlEncoder(&b)
		if err := enc.Encode(shown); err == nil {
			st.settingsYAML = b.String()
		}
	}
	if !st.Running && c.Crawl {
		if _, err := os.Stat(filepath.Join(d.state(), datadir.StoreDir)); err == nil {
			if sum, err := frontier.ReadSummary(d.state()); err != nil {
				st.ProgressError = err.Error()
			} else {
				st.Progress = &sum
			}
		}
	}
	entries, _ := os.ReadDir(d.warc())
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		switch n := e.Name(); {
		case strings.HasSuffix(n, warc.Ext):
			st.WARC.Files++
		case strings.HasSuffix(n, warc.Ext+warc.OpenSuffix):
			st.WARC.Open++
		default:
			continue
		}
		st.WARC.Bytes += fi.Size()
	}
	return st, nil
}

func printDataStatus(cmd *cobra.Command, st dirStatus, asJSON bool) error {
	out := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "data\t%s\n", st.Data)
	const stamp = "2006-01-02 15:04:05 MST"
	switch r := st.LastRun; {
	case st.Running:
		since := ""
		if r != nil && r.PID == st.PID {
			since = ", since " + r.Started.Local().Format(stamp)
		}
		fmt.Fprintf(tw, "crawl\trunning now (pid %d%s); its progress: godwit status (admin API)\n", st.PID, since)
	case r == nil:
		fmt.Fprintf(tw, "crawl\tnot running\n")
	case r.Ended.IsZero():
		fmt.Fprintf(tw, "crawl\tnot running; the last run (pid %d) started %s and did not finish (killed or crashed)\n",
			r.PID, r.Started.Local().Format(stamp))
	default:
		fmt.Fprintf(tw, "crawl\tnot running; the last run ran from %s to %s (%s)\n",
			r.Started.Local().Format(stamp), r.Ended.Local().Format(stamp), r.Ended.Sub(r.Started).Round(time.Millisecond))
	}
	if !st.Created.IsZero() {
		fmt.Fprintf(tw, "created\t%s\n", st.Created.Local().Format(stamp))
	}
	switch p := st.Progress; {
	case p != nil:
		fmt.Fprintf(tw, "URLs\t%s seen, %s queued, %s fetched\n", humanCount(p.Seen), humanCount(p.Queued), humanCount(p.Fetched))
		fmt.Fprintf(tw, "hosts\t%s known, %s blocked\n", humanCount(p.Hosts), humanCount(p.Blocked))
	case st.ProgressError != "":
		fmt.Fprintf(tw, "URLs\tunreadable: %s\n", st.ProgressError)
	case st.Running:
		fmt.Fprintf(tw, "URLs\tin the running crawl's store: godwit status (admin API)\n")
	}
	open := ""
	if st.WARC.Open > 0 {
		open = fmt.Sprintf(" and %d being written", st.WARC.Open)
	}
	fmt.Fprintf(tw, "WARC\t%d files%s, %s\n", st.WARC.Files, open, humanBytes(st.WARC.Bytes))
	if st.settingsYAML == "" {
		fmt.Fprintf(tw, "settings\tnot stored (a crawl made by an earlier godwit)\n")
		return tw.Flush()
	}
	fmt.Fprintf(tw, "settings\tfrom %s (used on resume; a flag given then overrides)\n", st.settingsPath)
	if err := tw.Flush(); err != nil {
		return err
	}
	return indent(out, st.settingsYAML, "  ")
}

func indent(w io.Writer, text, prefix string) error {
	for line := range strings.Lines(text) {
		if _, err := io.WriteString(w, prefix+line); err != nil {
			return err
		}
	}
	return nil
}

// dropKey removes key and its value from the mapping node n.
func dropKey(n *yaml.Node, key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
	}
}

// markDefaults marks "# default" each scalar of shown (the effective
// settings) whose value differs from the same key's in stored (the zero
// that means it), and lists their dotted keys in keys.
func markDefaults(shown, stored *yaml.Node, prefix string, keys *[]string) {
	for i := 0; i+1 < len(shown.Content); i += 2 {
		key, val := shown.Content[i].Value, shown.Content[i+1]
		var old *yaml.Node
		for j := 0; j+1 < len(stored.Content); j += 2 {
			if stored.Content[j].Value == key {
				old = stored.Content[j+1]
			}
		}
		switch {
		case old == nil:
		case val.Kind == yaml.MappingNode:
			markDefaults(val, old, prefix+key+".", keys)
		case val.Kind == yaml.ScalarNode && old.Kind == yaml.ScalarNode && val.Value != old.Value:
			val.LineComment = "default"
			*keys = append(*keys, prefix+key)
		}
	}
}
