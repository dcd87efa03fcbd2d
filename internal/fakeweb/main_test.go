package fakeweb

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: every
// server, client connection and hanging handler must have ended.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
