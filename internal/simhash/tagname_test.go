package simhash

import "testing"

// TestVisibleTextTagNames covers the tag names read from the raw tag
// rather than through the tokenizer's TagName: case, names longer than the
// name buffer, a NUL in a name, and the hidden/role pre-check.
func TestVisibleTextTagNames(t *testing.T) {
	tests := []struct{ page, want string }{
		{"<DIV>a</DIV><SPAN>b</SPAN>c", "a bc"},
		{"<NAV>menu</NAV>text", "text"},
		{"<my-very-long-custom-element-name hidden>secret</my-very-long-custom-element-name>visible", "visible"},
		{"<my-very-long-custom-element-name>a<my-very-long-custom-element-name>b</my-very-long-custom-element-name></my-very-long-custom-element-name>c", "a b c"},
		{"<DIV ROLE=Navigation>nav</DIV>text", "text"},
		{"<div HIDDEN>x</div>y", "y"},
		{"<div data-x='role hidden'>kept</div>", "kept"},
		{"<div title=roles>kept</div>too", "kept too"},
		{"<di\x00v hidden>gone</di\x00v>here", "here"},
		{"<svg/>after", "after"},
	}
	for _, tt := range tests {
		if got := VisibleText([]byte(tt.page)); got != tt.want {
			t.Errorf("VisibleText(%q) = %q, want %q", tt.page, got, tt.want)
		}
	}
}
