package fakeweb

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// stampListener makes ln's TCP connections keep the kernel's receive
// time of every read (SO_TIMESTAMPNS, read with recvmsg), for
// Request.Arrived. It sits below TLS, so HTTP, HTTPS and HTTP/2 alike
// are stamped. The option is set on the listening socket too, so that
// accepted connections inherit it and the kernel stamps segments that
// arrive before Accept returns. A listener that is not TCP, or a socket
// that refuses the option, is served as before, without Arrived.
//
// The kernel turns receive timestamps on for the whole machine when the
// first socket asks for them, a moment later (from a work queue), and
// off when the last one closes; data received in between carries none.
// So stampListener returns once a byte sent to itself over loopback TCP
// comes back stamped (at most a second; ctx ends the wait too).
func stampListener(ctx context.Context, ln net.Listener) net.Listener {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return ln
	}
	if rc, err := tl.SyscallConn(); err != nil || setTimestamps(rc) != nil {
		return ln
	}
	waitTimestamps(ctx)
	return &stampingListener{tl}
}

// waitTimestamps waits until the kernel stamps the TCP segments loopback
// receives, by sending a byte to itself until one comes back stamped.
// (UDP would not do: it stamps a datagram when it is read if it was not
// when it arrived.)
func waitTimestamps(ctx context.Context) {
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return
	}
	defer ln.Close()
	out, err := net.DialTCP("tcp4", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		return
	}
	defer out.Close()
	in, err := ln.AcceptTCP()
	if err != nil {
		return
	}
	defer in.Close()
	rc, err := in.SyscallConn()
	if err != nil || setTimestamps(rc) != nil {
		return
	}
	c := &stampConn{Conn: in, tcp: in, rc: rc, arr: &arrivals{}}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	retry := time.NewTicker(time.Millisecond)
	defer retry.Stop()
	buf := make([]byte, 1)
	for {
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := out.Write(buf); err != nil {
			return
		}
		if _, err := c.Read(buf); err != nil || !c.arr.request(false).IsZero() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-retry.C:
		}
	}
}

func setTimestamps(rc syscall.RawConn) error {
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return err
	}
	return serr
}

type stampingListener struct{ *net.TCPListener }

func (l *stampingListener) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	rc, err := c.SyscallConn()
	if err != nil || setTimestamps(rc) != nil {
		return c, nil
	}
	return &stampConn{Conn: c, tcp: c, rc: rc, arr: &arrivals{}}, nil
}

// stampConn reads with recvmsg and keeps, in arr, the receive time the
// kernel reports for each read: that of the newest data the read
// consumed. It embeds net.Conn, not *net.TCPConn, so that no method
// that reads (WriteTo) bypasses Read.
type stampConn struct {
	net.Conn
	tcp *net.TCPConn
	rc  syscall.RawConn
	arr *arrivals
}

func (c *stampConn) arrivals() *arrivals { return c.arr }

// CloseWrite lets http.Server half-close the connection as it does a
// *net.TCPConn.
func (c *stampConn) CloseWrite() error { return c.tcp.CloseWrite() }

func (c *stampConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	oob := make([]byte, unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{}))))
	var n, oobn int
	var rerr error
	err := c.rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), p, oob, 0)
		return !errors.Is(rerr, unix.EAGAIN) && !errors.Is(rerr, unix.EINTR)
	})
	if err == nil && rerr != nil {
		err = &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("recvmsg", rerr)}
	}
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, io.EOF
	}
	c.arr.set(receiveTime(oob[:oobn]))
	return n, nil
}

// receiveTime is the SCM_TIMESTAMPNS in a recvmsg's control data, zero if
// there is none (data that reached the socket before timestamps were
// enabled anywhere on the machine).
func receiveTime(oob []byte) time.Time {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return time.Time{}
	}
	for _, m := range msgs {
		if m.Header.Level != unix.SOL_SOCKET || m.Header.Type != unix.SCM_TIMESTAMPNS {
			continue
		}
		var ts unix.Timespec
		if len(m.Data) < int(unsafe.Sizeof(ts)) {
			continue
		}
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&ts)), unsafe.Sizeof(ts)), m.Data)
		return time.Unix(ts.Unix())
	}
	return time.Time{}
}
