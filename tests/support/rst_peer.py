#!/usr/bin/env python3
"""A TCP peer that ends its connections with a reset (RST) instead of a FIN.

Deno cannot set SO_LINGER, so the proxy tests use this script whenever a peer must vanish
abortively. Both modes send a fixed pattern (byte i is i % 251), then wait for one byte from
the other side as the go-ahead, and reset the connection (SO_LINGER on, timeout 0, close).

  rst_peer.py server --send N   listen on 127.0.0.1 (free port), print "listening PORT"; for
                                each connection read the PROXY v1 header line, print
                                "header LINE", send N bytes, print "sent N", then reset on the
                                first byte received ("reset") or close on EOF ("closed").
  rst_peer.py client --host H --port P --send N
                                connect, print "local PORT", send N bytes, print "sent N",
                                reset on the first byte received ("reset"; exit 0) or print
                                "eof" and exit 1 if the connection ends first.

Every line is flushed at once so the test can follow along.
"""

import argparse
import socket
import struct
import sys


def say(text):
    print(text, flush=True)


def pattern(count):
    return bytes(i % 251 for i in range(count))


def reset(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def read_header_line(sock):
    data = b""
    while b"\r\n" not in data:
        if len(data) > 107:
            raise ValueError("no CRLF within 107 bytes: %r" % data)
        chunk = sock.recv(1)
        if not chunk:
            raise ValueError("connection ended before the PROXY header: %r" % data)
        data += chunk
    return data.decode("ascii").rstrip("\r\n")


def wait_for_go_ahead(sock):
    """True when a byte arrived (reset now), False on EOF."""
    return len(sock.recv(1)) > 0


def serve(send):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    say("listening %d" % listener.getsockname()[1])
    payload = pattern(send)
    while True:
        conn, _ = listener.accept()
        try:
            say("header " + read_header_line(conn))
            conn.sendall(payload)
            say("sent %d" % send)
            if wait_for_go_ahead(conn):
                reset(conn)
                say("reset")
            else:
                conn.close()
                say("closed")
        except (OSError, ValueError) as error:
            say("error %s" % error)
            conn.close()


def connect(host, port, send):
    sock = socket.create_connection((host, port))
    say("local %d" % sock.getsockname()[1])
    sock.sendall(pattern(send))
    say("sent %d" % send)
    if wait_for_go_ahead(sock):
        reset(sock)
        say("reset")
        return 0
    sock.close()
    say("eof")
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["server", "client"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--send", type=int, required=True)
    args = parser.parse_args()
    if args.mode == "server":
        serve(args.send)
        return 0
    return connect(args.host, args.port, args.send)


if __name__ == "__main__":
    sys.exit(main())
