// Command go_relay is the benchmark's Go anchor for `deno task bench:proxy`: the design of a
// plain Go PROXY-protocol relay, kept as small as the design allows so the figures show what
// the Go runtime costs rather than what a product adds.
//
// For every accepted connection it dials the target, writes a PROXY v1 header naming the
// client, and copies both directions with io.Copy in two goroutines; when one direction ends
// it half-closes the other side's write end, and closes both sockets once both directions are
// done. An error in either direction closes both sockets.
//
// Usage: go_relay LISTEN=TARGET [LISTEN=TARGET ...], e.g. 127.0.0.1:9000=127.0.0.1:8080.
// It prints "ready" on stdout once every listener is bound.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

const dialTimeout = 5 * time.Second

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go_relay LISTEN=TARGET [LISTEN=TARGET ...]")
		os.Exit(2)
	}
	listeners := make([]net.Listener, 0, len(os.Args)-1)
	targets := make([]string, 0, len(os.Args)-1)
	for _, pair := range os.Args[1:] {
		listen, target, found := strings.Cut(pair, "=")
		if !found {
			fmt.Fprintf(os.Stderr, "go_relay: %q is not LISTEN=TARGET\n", pair)
			os.Exit(2)
		}
		listener, err := net.Listen("tcp", listen)
		if err != nil {
			fmt.Fprintf(os.Stderr, "go_relay: %v\n", err)
			os.Exit(1)
		}
		listeners = append(listeners, listener)
		targets = append(targets, target)
	}
	fmt.Println("ready")
	for i := range listeners {
		go serve(listeners[i], targets[i])
	}
	select {}
}

// serve accepts forever; a temporary failure such as EMFILE is retried after a short pause.
func serve(listener net.Listener, target string) {
	for {
		conn, err := listener.Accept()
		if err != nil {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() || isTemporary(err) {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			fmt.Fprintf(os.Stderr, "go_relay: accept: %v\n", err)
			os.Exit(1)
		}
		go relay(conn.(*net.TCPConn), target)
	}
}

func isTemporary(err error) bool {
	temporary, ok := err.(interface{ Temporary() bool })
	return ok && temporary.Temporary()
}

func relay(client *net.TCPConn, target string) {
	defer client.Close()
	dialed, err := net.DialTimeout("tcp", target, dialTimeout)
	if err != nil {
		return
	}
	backend := dialed.(*net.TCPConn)
	defer backend.Close()
	if _, err := io.WriteString(backend, proxyHeader(client)); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		pipe(backend, client)
		close(done)
	}()
	pipe(client, backend)
	<-done
}

// pipe copies src to dst until EOF, then half-closes dst; on an error it closes both sockets,
// which also ends the other direction's copy.
func pipe(dst, src *net.TCPConn) {
	_, err := io.Copy(dst, src)
	if err == nil {
		err = dst.CloseWrite()
	}
	if err != nil {
		dst.Close()
		src.Close()
	}
}

// proxyHeader is the PROXY v1 line for the client's connection: its source and the address it
// reached.
func proxyHeader(client *net.TCPConn) string {
	source := client.RemoteAddr().(*net.TCPAddr)
	destination := client.LocalAddr().(*net.TCPAddr)
	family := "TCP4"
	if source.IP.To4() == nil {
		family = "TCP6"
	}
	return fmt.Sprintf("PROXY %s %s %s %d %d\r\n", family, source.IP, destination.IP, source.Port, destination.Port)
}
