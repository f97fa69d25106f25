#!/usr/bin/env python3
"""A TCP proxy that injects faults between Depot and one of its dependencies (PostgreSQL, the S3 gateway, a store
API double, a purge endpoint), switched while a test runs.

    python3 fault_proxy.py --upstream 127.0.0.1:5432 [--port 0]

prints one JSON line, {"port": P, "control": C}, then serves until killed. Depot is pointed at 127.0.0.1:P; the test
switches the mode with an HTTP request to the control port:

    GET /mode?name=pass                      forward both ways (the default)
    GET /mode?name=refuse                    stop listening (new connections are refused) and reset open ones,
                                             as a stopped server does
    GET /mode?name=blackhole                 accept new connections and forward nothing, either way, on new or open
                                             connections: bytes wait in the sockets' buffers (a network that stopped
                                             answering); back to pass, they flow again
    GET /mode?name=reset                     reset open connections (TCP RST) and every new one as it is accepted
    GET /mode?name=slow&latency=S&rate=B     forward with S seconds of latency per chunk at B bytes per second
    GET /stats                               {"mode", "accepted", "open", "bytes"} as JSON

Every answer of the control port is 200 with a JSON body, once the mode is in force.
"""
import argparse
import asyncio
import json
import socket
import struct
import sys
import urllib.parse


class Proxy:
    def __init__(self, upstream_host, upstream_port, port):
        self.upstream = (upstream_host, upstream_port)
        self.port = port
        self.mode = "pass"
        self.latency = 0.0
        self.rate = 0
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.server = None
        self.connections = set()
        self.accepted = 0
        self.bytes = 0

    async def listen(self):
        self.server = await asyncio.start_server(self.accept, "127.0.0.1", self.port, reuse_address=True)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop_listening(self):
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    @staticmethod
    def reset(writer):
        sock = writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        writer.transport.abort()

    def reset_all(self):
        for pair in list(self.connections):
            for writer in pair:
                if writer is not None:
                    self.reset(writer)
        self.connections.clear()

    async def set_mode(self, name, latency=0.0, rate=0):
        if name not in ("pass", "refuse", "blackhole", "reset", "slow"):
            raise ValueError("unknown mode " + name)
        self.mode, self.latency, self.rate = name, latency, rate
        if name in ("pass", "slow"):
            self.flowing.set()
        else:
            self.flowing.clear()
        if name in ("refuse", "reset"):
            self.reset_all()
        if name == "refuse":
            await self.stop_listening()
        elif self.server is None:
            await self.listen()

    async def accept(self, reader, writer):
        self.accepted += 1
        if self.mode in ("reset", "refuse"):
            self.reset(writer)
            return
        entry = (writer,)
        self.connections.add(entry)
        try:
            # A blackholed connection is accepted and held: the upstream is reached once bytes flow again.
            await self.flowing.wait()
            try:
                up_reader, up_writer = await asyncio.open_connection(*self.upstream)
            except OSError:
                self.reset(writer)
                return
            self.connections.discard(entry)
            entry = (writer, up_writer)
            self.connections.add(entry)
            await asyncio.gather(self.pump(reader, up_writer), self.pump(up_reader, writer), return_exceptions=True)
        finally:
            self.connections.discard(entry)
            for w in entry:
                try:
                    w.close()
                except Exception:
                    pass

    async def pump(self, reader, writer):
        try:
            while True:
                await self.flowing.wait()
                data = await reader.read(65536)
                if not data:
                    break
                await self.flowing.wait()
                if self.mode == "slow":
                    if self.latency > 0:
                        await asyncio.sleep(self.latency)
                    if self.rate > 0:
                        step = max(1, self.rate // 20)
                        for i in range(0, len(data), step):
                            writer.write(data[i : i + step])
                            await writer.drain()
                            await asyncio.sleep(len(data[i : i + step]) / self.rate)
                        self.bytes += len(data)
                        continue
                writer.write(data)
                self.bytes += len(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            try:
                if writer.can_write_eof():
                    writer.write_eof()
            except (OSError, RuntimeError):
                pass

    async def control(self, reader, writer):
        try:
            line = (await reader.readline()).decode("latin-1")
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            target = line.split(" ")[1] if len(line.split(" ")) > 1 else "/"
            url = urllib.parse.urlsplit(target)
            query = dict(urllib.parse.parse_qsl(url.query))
            status, body = "200 OK", {}
            try:
                if url.path == "/mode":
                    await self.set_mode(
                        query.get("name", "pass"), float(query.get("latency", "0")), int(query.get("rate", "0")))
                if url.path not in ("/mode", "/stats"):
                    status, body = "404 Not Found", {"error": "unknown path"}
                else:
                    body = {
                        "mode": self.mode,
                        "accepted": self.accepted,
                        "open": len(self.connections),
                        "bytes": self.bytes,
                    }
            except ValueError as error:
                status, body = "400 Bad Request", {"error": str(error)}
            payload = json.dumps(body).encode()
            writer.write(
                b"HTTP/1.1 " + status.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(payload)).encode() + b"\r\nConnection: close\r\n\r\n" + payload)
            await writer.drain()
        finally:
            writer.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT of the dependency")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: a free one)")
    arguments = parser.parse_args()
    host, _, port = arguments.upstream.rpartition(":")
    proxy = Proxy(host or "127.0.0.1", int(port), arguments.port)
    await proxy.listen()
    control = await asyncio.start_server(proxy.control, "127.0.0.1", 0)
    print(json.dumps({"port": proxy.port, "control": control.sockets[0].getsockname()[1]}), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
