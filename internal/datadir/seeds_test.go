package datadir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadSeedsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "seeds.txt")
	text := "# seeds\nhttps://a.example/ # a comment\n\n  https://b.example/#frag\n\thttps://c.example/ \nhttps://d.example/#top  # a note\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSeedsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Seed{
		{"https://a.example/", path + ":2"},
		{"https://b.example/#frag", path + ":4"},
		{"https://c.example/", path + ":5"},
		{"https://d.example/#top", path + ":6"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ReadSeedsFile(%q) = %v, want %v", text, got, want)
	}
	missing := filepath.Join(dir, "none.txt")
	if _, err := ReadSeedsFile(missing); err == nil || err.Error() != "seeds file "+missing+" does not exist" {
		t.Errorf("ReadSeedsFile(missing) = %v, want the words 'does not exist'", err)
	}
}

func TestSeedsSaveLoad(t *testing.T) {
	dir := t.TempDir()
	if got, err := LoadSeeds(dir); err != nil || got != nil {
		t.Fatalf("LoadSeeds of a new directory = %v, %v, want none", got, err)
	}
	seeds := []string{"https://a.example/", "https://b.example/x"}
	if err := SaveSeeds(dir, seeds); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, StateDir, SeedsFile))
	if err != nil || string(b) != strings.Join(seeds, "\n")+"\n" {
		t.Errorf("state/seeds.txt = %q, %v", b, err)
	}
	if got, err := LoadSeeds(dir); err != nil || !slices.Equal(got, seeds) {
		t.Errorf("LoadSeeds = %v, %v, want %v", got, err, seeds)
	}
}
