package simhash

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"unicode"
)

// pythonVectors holds vectors of the most used Python SimHash (PyPI
// "simhash", github.com/1e0ng/simhash), shared by the repository's
// conformance suites (see its README).
const pythonVectors = "../../../shared/conformance/simhash/python-simhash-vectors.json"

// TestConformancePythonSimhash checks the SimHash combination step against
// Python's simhash: its feature cases hash each feature with md5 (the last
// 8 bytes, big-endian) and must give exactly its values, since only the
// feature hash differs from FromFeatures. Its text cases use its own
// tokenizer (character 4-grams of the text with non-word characters
// removed, not word shingles); replicated here, they are a sanity check of
// the whole pipeline, reported and not required.
func TestConformancePythonSimhash(t *testing.T) {
	data, err := os.ReadFile(pythonVectors)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s not found: conformance data is beside the repository (see ../shared/conformance/README.md)", pythonVectors)
	}
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		FeatureCases []struct {
			Features []json.RawMessage `json:"features"` // "f" or ["f", weight]
			Value    uint64            `json:"value"`
		} `json:"feature_cases"`
		TextCases []struct {
			Text  string `json:"text"`
			Value uint64 `json:"value"`
		} `json:"text_cases"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", pythonVectors, err)
	}
	if len(v.FeatureCases) == 0 || len(v.TextCases) == 0 {
		t.Fatalf("%s: no cases", pythonVectors)
	}
	exact := 0
	for i, c := range v.FeatureCases {
		var fs []Feature
		for _, raw := range c.Features {
			var f Feature
			var pair []json.RawMessage
			if err := json.Unmarshal(raw, &f.Text); err == nil {
				f.Weight = 1
			} else if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 ||
				json.Unmarshal(pair[0], &f.Text) != nil || json.Unmarshal(pair[1], &f.Weight) != nil {
				t.Fatalf("feature case %d: feature %s is neither a string nor [string, weight]", i, raw)
			}
			fs = append(fs, f)
		}
		if got := fromFeatures(fs, pythonHash); got == c.Value {
			exact++
		} else {
			t.Errorf("feature case %d: fromFeatures(%v, md5) = %d, want %d (distance %d)", i, fs, got, c.Value, Distance(got, c.Value))
		}
	}
	agree := 0
	for _, c := range v.TextCases {
		got := fromFeatures(pythonFeatures(c.Text), pythonHash)
		if got == c.Value {
			agree++
		} else {
			t.Logf("text case %q: %d, Python %d (distance %d)", c.Text, got, c.Value, Distance(got, c.Value))
		}
	}
	t.Logf("feature cases: %d/%d exact; text cases with Python's tokenizer replicated: %d/%d agree",
		exact, len(v.FeatureCases), agree, len(v.TextCases))
}

// pythonHash is Python simhash's default feature hash: md5 of the UTF-8
// bytes, of which the fingerprint takes the last 8 as a big-endian integer.
func pythonHash(s string) uint64 {
	sum := md5.Sum([]byte(s))
	return binary.BigEndian.Uint64(sum[8:])
}

// pythonFeatures is Python simhash's tokenizer: the text lower-cased, only
// its matches of [\w\u4e00-\u9fcc]+ kept and concatenated without
// separators, cut into sliding windows of 4 characters (one window, maybe
// empty, if shorter), each weighted by its number of occurrences. Python's
// \w on str is letters, numbers and '_'; its lower() is close enough to
// strings.ToLower for these cases.
func pythonFeatures(text string) []Feature {
	var kept []rune
	for _, r := range strings.ToLower(text) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || 0x4e00 <= r && r <= 0x9fcc {
			kept = append(kept, r)
		}
	}
	const width = 4
	counts := map[string]int{}
	var order []string
	for i := range max(len(kept)-width+1, 1) {
		w := string(kept[i:min(i+width, len(kept))])
		if counts[w] == 0 {
			order = append(order, w)
		}
		counts[w]++
	}
	fs := make([]Feature, len(order))
	for i, w := range order {
		fs[i] = Feature{w, counts[w]}
	}
	return fs
}
