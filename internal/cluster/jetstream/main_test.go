package jetstream

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine outlives them: the
// nodes, servers, proxies and readers the tests start must all end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
