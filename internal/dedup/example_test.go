package dedup_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/godwit-crawler/godwit/internal/dedup"
)

// The frontier asks the filter first and the store only for "maybe seen"
// keys; the filter is snapshotted and restored on restart.
func ExampleBloom() {
	seen := dedup.NewBloom(1_000_000, 10)
	for _, u := range []string{"http://example.com/", "http://example.com/a"} {
		seen.Add([]byte(u))
	}

	for _, u := range []string{"http://example.com/a", "http://example.com/b"} {
		if seen.MayContain([]byte(u)) {
			fmt.Println(u, "maybe seen: ask the store")
		} else {
			fmt.Println(u, "new")
		}
	}

	var snap bytes.Buffer
	if _, err := seen.WriteTo(&snap); err != nil {
		log.Fatal(err)
	}
	restored, err := dedup.ReadBloom(&snap)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(restored.Len(), "keys restored")
	// Output:
	// http://example.com/a maybe seen: ask the store
	// http://example.com/b new
	// 2 keys restored
}
