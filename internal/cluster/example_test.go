package cluster_test

import (
	"fmt"

	"github.com/godwit-crawler/godwit/internal/cluster"
	"github.com/godwit-crawler/godwit/internal/shard"
)

// Three nodes share 1024 shards; a fourth joins and takes its share from
// the others, and only that share moves.
func ExampleAssign() {
	three := []cluster.Member{{ID: "n1"}, {ID: "n2"}, {ID: "n3"}}
	a := cluster.Assign(cluster.Assignment{}, three, 1024)
	b := cluster.Assign(a, append(three, cluster.Member{ID: "n4"}), 1024)
	fmt.Println(len(a.Shards("n1")), len(a.Shards("n2")), len(a.Shards("n3")))
	fmt.Println(len(b.Shards("n4")), "shards for n4;", a.Moved(b), "moved")
	fmt.Println("example.com is in shard", shard.Of("example.com", 1024))
	// Output:
	// 342 341 341
	// 256 shards for n4; 256 moved
	// example.com is in shard 649
}
