#!/usr/bin/env python3
"""A minimal keep-alive HTTP/1.1 client for bench/instructions-per-response.sh.

Sends COUNT requests one after another on ONE connection (the next request leaves once the previous
answer has arrived in full), the way each of wrk's connections does, and checks every answer: its
status, and a body of exactly the expected length. The requests are formatted as wrk formats them
(request line, Host, Authorization, Range).

    keepalive-client.py PORT PATH GRANT COUNT STATUS BODY_BYTES [RANGE_SIZE FILE_SIZE SEED]

With RANGE_SIZE, every request asks for RANGE_SIZE bytes at an offset aligned to RANGE_SIZE inside
FILE_SIZE, from a PRNG seeded with SEED (the same sequence on every run and every server).
Prints "ok COUNT" on success; exits 1 with a message on the first wrong answer.
"""

import random
import socket
import sys


def read_answer(sock, pending):
    """Reads one answer; returns (status, body length, bytes left over)."""
    while b"\r\n\r\n" not in pending:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SystemExit("the server closed the connection")
        pending += chunk
    head, _, rest = pending.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ")[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SystemExit("the server closed the connection inside a body")
        rest += chunk
    return status, length, rest[length:]


def main():
    port, path, grant, count, status, body_bytes = sys.argv[1:7]
    port, count, status, body_bytes = int(port), int(count), int(status), int(body_bytes)
    ranges = None
    if len(sys.argv) > 7:
        range_size, file_size, seed = (int(x) for x in sys.argv[7:10])
        generator = random.Random(seed)
        slots = file_size // range_size
        ranges = [generator.randrange(slots) * range_size for _ in range(count)]
    base = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {grant}\r\n"
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pending = b""
    for index in range(count):
        request = base
        if ranges is not None:
            first = ranges[index]
            request += f"Range: bytes={first}-{first + range_size - 1}\r\n"
        sock.sendall((request + "\r\n").encode())
        got, length, pending = read_answer(sock, pending)
        if got != status or length != body_bytes:
            raise SystemExit(f"answer {index + 1}: status {got} with {length} body bytes, expected {status} with {body_bytes}")
    if pending:
        raise SystemExit(f"{len(pending)} unexpected bytes after the last answer")
    sock.close()
    print(f"ok {count}")


if __name__ == "__main__":
    main()
