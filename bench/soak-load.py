#!/usr/bin/env python3
"""The purchase loop under load: redeem, download every bundle, finish, on keep-alive connections.

    python3 bench/soak-load.py PORT SECONDS WORKERS JWS_FILE

JWS_FILE holds one signed transaction per line; workers take them in turn. Prints one JSON line: the
counts by step and status, bytes downloaded, and every unexpected answer (status and body, the first 20).
"""
import http.client, json, sys, threading, time

port, seconds, workers, jws_file = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
transactions = [line.strip() for line in open(jws_file) if line.strip()]
lock = threading.Lock()
counts, problems = {}, []
downloaded = [0]
deadline = time.monotonic() + seconds


def count(step, status, body=b""):
    with lock:
        key = f"{step} {status}"
        counts[key] = counts.get(key, 0) + 1
        if status >= 300 and len(problems) < 20:
            problems.append(f"{step} {status}: {body[:200]!r}")


def request(connection, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


def worker(index):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    turn = index
    while time.monotonic() < deadline:
        jws = transactions[turn % len(transactions)]
        turn += workers
        try:
            status, body = request(connection, "POST", "/v1/transactions", json.dumps({"signedTransaction": jws}))
            count("redeem", status, body)
            if status != 200:
                continue
            answer = json.loads(body)
            delivered = []
            for download in answer.get("downloads", []):
                status, bundle = request(connection, "GET", download["url"])
                count("download", status, bundle if status >= 300 else b"")
                if status == 200:
                    with lock:
                        downloaded[0] += len(bundle)
                    delivered.append({"contentId": download["contentId"], "digest": download["digest"]})
            transaction = answer["transaction"]
            status, body = request(
                connection, "POST", f"/v1/transactions/{transaction['id']}/finish",
                json.dumps({"finishToken": transaction["finishToken"], "delivered": delivered}))
            count("finish", status, body)
        except (OSError, http.client.HTTPException) as error:
            count("connection", 599, str(error).encode())
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)


threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps({"counts": counts, "bytes": downloaded[0], "problems": problems}))
