package cluster

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them (a
// Node's shard readers end with its Close).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
