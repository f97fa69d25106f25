import Foundation

/// An HTTP/1.1 proxy in front of a server that spoils the first bundle answer it forwards: `cut` closes
/// the connection after `limit` bytes; `stall` stops forwarding after `limit` bytes and holds the
/// connection open until the client leaves; `pass` spoils nothing. Each request it forwarded is logged
/// with its `Range`, `If-Range`, the answer's status and `seq`, its number in the order requests arrived, once its
/// answer is relayed or broken off (then with the `error`).
enum CuttingProxy {
    enum Mode: String {
        case pass, cut, stall
    }

    static func start(_ python: String, upstream: Int, mode: Mode, limit: Int, logPath: String) async throws -> PythonService {
        try await PythonService.start(
            python, script: script, arguments: [String(upstream), logPath, mode.rawValue, String(limit)], logPath: logPath)
    }

    static let script = #"""
        import json, socket, sys, threading
        upstream, log_path, mode, limit = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
        lock = threading.Lock()
        state = {"armed": mode != "pass"}

        def log(entry):
            with lock:
                with open(log_path, "a") as f:
                    f.write(json.dumps(entry) + "\n")

        def serve(client):
            buf = b""
            # The request being relayed, until it is logged: one the client or the upstream broke off (a client
            # may close as soon as it holds a whole answer that says `Connection: close`) is logged all the same.
            entry = None
            try:
                while True:
                    while b"\r\n\r\n" not in buf:
                        chunk = client.recv(65536)
                        if not chunk:
                            return
                        buf += chunk
                    head, buf = buf.split(b"\r\n\r\n", 1)
                    lines = head.decode("latin-1").split("\r\n")
                    method, path = lines[0].split(" ")[0:2]
                    headers = {}
                    for line in lines[1:]:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                    length = int(headers.get("content-length", "0"))
                    while len(buf) < length:
                        chunk = client.recv(65536)
                        if not chunk:
                            return
                        buf += chunk
                    body, buf = buf[:length], buf[length:]
                    kept = [l for l in lines[1:] if l.split(":", 1)[0].strip().lower() != "connection"]
                    up = socket.create_connection(("127.0.0.1", upstream))
                    up.sendall(("\r\n".join([lines[0]] + kept + ["Connection: close"]) + "\r\n\r\n").encode("latin-1") + body)
                    with lock:
                        trip = state["armed"] and path.startswith("/v1/bundles/")
                        if trip:
                            state["armed"] = False
                        state["seq"] = state.get("seq", 0) + 1
                        seq = state["seq"]
                    entry = {"method": method, "path": path.split("?")[0], "range": headers.get("range"),
                             "ifRange": headers.get("if-range"), "status": None, "seq": seq}
                    sent, first = 0, b""
                    while True:
                        chunk = up.recv(65536)
                        if not chunk:
                            break
                        if entry["status"] is None:
                            first += chunk
                            if b"\r\n" in first:
                                entry["status"] = int(first.split(b" ", 2)[1])
                        if trip and sent + len(chunk) >= limit:
                            client.sendall(chunk[:limit - sent])
                            entry["spoiled"] = mode
                            log(entry)
                            entry = None
                            if mode == "stall":
                                while client.recv(65536):
                                    pass
                            up.close()
                            return
                        client.sendall(chunk)
                        sent += len(chunk)
                    up.close()
                    entry["bytes"] = sent
                    log(entry)
                    entry = None
            except OSError as error:
                if entry is not None:
                    entry["error"] = str(error)
                    log(entry)
            finally:
                client.close()

        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        print(server.getsockname()[1], flush=True)
        while True:
            connection, _ = server.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#
}
