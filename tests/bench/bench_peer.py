#!/usr/bin/env python3
"""Load peers for tests/bench/proxy_bench.ts, identical for every path that is measured.

Runs as its own process so that its file descriptors and CPU time are never counted against
the proxy under test. Modes:

  sink                      A TCP sink with two listeners: "pp" strips a PROXY header (v1 text or
                            v2 binary) before counting, "plain" counts from the first byte. On EOF
                            it answers with the decimal byte count and closes. A third "control"
                            listener answers every connection with one JSON line of counters.
                            Prints {"pp": port, "plain": port, "control": port} once listening.
  download HOST PORT PATH   GET PATH over HTTP/1.1 with Connection: close, read to EOF into one
                            reused 1 MiB buffer; prints {"bytes": body bytes, "seconds": ...}.
  upload HOST PORT FILE     sendfile(2) FILE, shut down the write side, wait for the sink's count;
                            prints {"bytes": acknowledged bytes, "seconds": ...}.
  hold HOST PORT            Reads commands on stdin: "open N" opens N more idle connections and
                            prints "opened <total>"; "close" (or EOF) closes them all and exits.
"""

import asyncio
import json
import socket
import sys
import time

BUFFER_SIZE = 1 << 20
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def header_length(head):
    """Length of the PROXY header at the start of head, or None while it is incomplete."""
    if head.startswith(V2_SIGNATURE[: len(head)]) and len(head) < 16:
        return None
    if head.startswith(V2_SIGNATURE):
        return 16 + int.from_bytes(head[14:16], "big") if len(head) >= 16 else None
    end = head.find(b"\r\n")
    if end < 0:
        if len(head) > 107:
            raise ValueError("no PROXY v1 header in the first 107 bytes")
        return None
    return end + 2


class Counters:
    def __init__(self):
        self.accepted = 0
        self.ready = 0
        self.bytes = 0


class SinkProtocol(asyncio.BufferedProtocol):
    """Counts payload bytes into one shared buffer (the data is thrown away)."""

    def __init__(self, counters, shared, expect_header):
        self.counters = counters
        self.shared = shared
        self.head = bytearray() if expect_header else None
        self.count = 0
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        self.counters.accepted += 1
        if self.head is None:
            self.counters.ready += 1

    def get_buffer(self, sizehint):
        return self.shared

    def buffer_updated(self, nbytes):
        if self.head is None:
            self.count += nbytes
            return
        self.head += self.shared[:nbytes]
        try:
            length = header_length(self.head)
        except ValueError:
            self.transport.abort()
            return
        if length is None:
            return
        self.count += len(self.head) - length
        self.head = None
        self.counters.ready += 1

    def eof_received(self):
        self.counters.bytes += self.count
        self.transport.write(b"%d\n" % self.count)
        self.transport.close()
        return True

    def connection_lost(self, exc):
        if self.head is None:
            self.counters.ready -= 1


class ControlProtocol(asyncio.Protocol):
    def __init__(self, counters):
        self.counters = counters

    def connection_made(self, transport):
        c = self.counters
        transport.write(json.dumps({"accepted": c.accepted, "ready": c.ready, "bytes": c.bytes}).encode() + b"\n")
        transport.close()


async def sink():
    loop = asyncio.get_running_loop()
    counters = Counters()
    shared = memoryview(bytearray(BUFFER_SIZE))
    servers = {}
    for name, expect_header in (("pp", True), ("plain", False)):
        servers[name] = await loop.create_server(
            lambda e=expect_header: SinkProtocol(counters, shared, e), "127.0.0.1", 0, backlog=4096
        )
    servers["control"] = await loop.create_server(lambda: ControlProtocol(counters), "127.0.0.1", 0)
    ports = {name: server.sockets[0].getsockname()[1] for name, server in servers.items()}
    print(json.dumps(ports), flush=True)
    await asyncio.Event().wait()


def download(host, port, path):
    started = time.perf_counter()
    conn = socket.create_connection((host, port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
    buffer = bytearray(BUFFER_SIZE)
    view = memoryview(buffer)
    head = bytearray()
    body = 0
    while True:
        n = conn.recv_into(view)
        if n == 0:
            break
        if head is not None:
            head += view[:n]
            end = head.find(b"\r\n\r\n")
            if end >= 0:
                status = head.split(b" ", 2)[1]
                if status != b"200":
                    raise SystemExit(f"download got HTTP {status.decode()}")
                body += len(head) - end - 4
                head = None
        else:
            body += n
    conn.close()
    print(json.dumps({"bytes": body, "seconds": time.perf_counter() - started}))


def upload(host, port, path):
    started = time.perf_counter()
    conn = socket.create_connection((host, port))
    with open(path, "rb") as source:
        conn.sendfile(source)
    conn.shutdown(socket.SHUT_WR)
    reply = bytearray()
    while True:
        chunk = conn.recv(64)
        if not chunk:
            break
        reply += chunk
    conn.close()
    print(json.dumps({"bytes": int(reply or b"-1"), "seconds": time.perf_counter() - started}))


def hold(host, port):
    conns = []
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "close":
            break
        if words[0] == "open":
            for _ in range(int(words[1])):
                conns.append(socket.create_connection((host, port)))
            print(f"opened {len(conns)}", flush=True)
    for conn in conns:
        conn.close()


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "sink":
        asyncio.run(sink())
    elif mode == "download":
        download(argv[2], int(argv[3]), argv[4])
    elif mode == "upload":
        upload(argv[2], int(argv[3]), argv[4])
    elif mode == "hold":
        hold(argv[2], int(argv[3]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
