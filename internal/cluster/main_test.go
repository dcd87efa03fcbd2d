package cluster

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them (a
// Batcher's publishing goroutines end with its Run).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
