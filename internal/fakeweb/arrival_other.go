//go:build !linux

package fakeweb

import (
	"context"
	"net"
)

// stampListener is ln as it is: kernel receive times are read on Linux
// only, so requests elsewhere have no Request.Arrived.
func stampListener(_ context.Context, ln net.Listener) net.Listener { return ln }
