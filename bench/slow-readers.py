#!/usr/bin/env python3
"""Many slow readers of one large download: each connection asks for the whole body and reads a little at
a time, so the server holds every response open at once.

    python3 bench/slow-readers.py PORT PATH CONNECTIONS SECONDS [READ_BYTES_PER_SECOND]

Prints one JSON line: connections opened, those answered 200, bytes read, and failures.
"""
import asyncio, json, socket, sys

port, path, connections, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
rate = int(sys.argv[5]) if len(sys.argv) > 5 else 32768
result = {"opened": 0, "answered200": 0, "bytes": 0, "failures": []}


async def reader(index):
    try:
        stream, writer = await asyncio.open_connection("127.0.0.1", port, limit=65536)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        result["opened"] += 1
        writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        await writer.drain()
        head = await stream.readuntil(b"\r\n\r\n")
        if head.split(b" ", 2)[1] == b"200":
            result["answered200"] += 1
        else:
            result["failures"].append(head[:100].decode(errors="replace"))
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while loop.time() < end:
            chunk = await stream.read(rate // 4)
            if not chunk:
                result["failures"].append(f"connection {index} closed early")
                break
            result["bytes"] += len(chunk)
            await asyncio.sleep(0.25)
        writer.close()
    except Exception as error:  # every failure is reported, none stops the others
        if len(result["failures"]) < 20:
            result["failures"].append(f"{type(error).__name__}: {error}")


async def main():
    await asyncio.gather(*(reader(i) for i in range(connections)))


asyncio.run(main())
print(json.dumps(result))
