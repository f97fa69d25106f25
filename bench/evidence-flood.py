#!/usr/bin/env python3
"""Load client for bench/evidence-flood.sh (standard library only).

One buyer floods the served-bytes evidence while another buyer redeems:

1. The first signed transaction of --transactions is redeemed: the flooder's bundle URL (with its grant).
2. A sampler thread redeems the other transactions in turn (each once, then again from the first), one request at a
   time on its own keep-alive connection, --interval milliseconds apart, and downloads each offered bundle whole:
   another buyer's redeems and evidence. Each redeem's latency is recorded under the phase it started in.
3. `before`: the sampler alone for --before seconds.
4. `during`: the flood, --requests GETs of the flooder's bundle on one keep-alive connection, each asking for
   --ranges disjoint 1-byte ranges (a multipart answer: one served range per part), no two requests' ranges
   touching; then the sampler goes on until the server has written the evidence (the ledger's `recordServed` count
   in /metrics unchanged for a second, with nothing waiting) and at least --after seconds have passed, at most
   --drain-limit seconds.

Prints one JSON object: the redeem latency percentiles (ms) per phase, the ratio of the p99s, the flood's send
time, how long the evidence writer took to catch up, and the served-bytes counters of /metrics (events dropped
from the full queue, ranges left out for the flooder's share and past the ledger's bound). Exits 1 when any
redeem is not answered 200, any flood request not 206, or a bundle download not 200.
"""

import argparse
import http.client
import json
import re
import sys
import threading
import time


def percentile(sorted_values, fraction):
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, int(round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def connect(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=600)


def call(connection, method, path, body=None, headers=None):
    headers = dict(headers or {})
    if body is not None:
        headers["Content-Type"] = "application/json"
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


def metrics(port, token):
    """The samples of /metrics, name{labels} -> value."""
    connection = connect(port)
    try:
        status, body = call(connection, "GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
    finally:
        connection.close()
    if status != 200:
        raise SystemExit(f"evidence-flood.py: /metrics answered {status}")
    values = {}
    for line in body.decode().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        match = re.match(r"^(\S+?)\s+(\S+)$", line)
        if match:
            values[match.group(1)] = float(match.group(2))
    return values


def sample(values, name, **labels):
    """The value of the sample `name` whose labels include `labels` (0 when absent)."""
    for key, value in values.items():
        base, _, rest = key.partition("{")
        if base != name:
            continue
        if all(f'{k}="{v}"' in rest for k, v in labels.items()):
            return value
    return 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--transactions", required=True)
    parser.add_argument("--metrics-token", required=True)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--ranges", type=int, default=16)
    parser.add_argument("--before", type=float, default=5)
    parser.add_argument("--after", type=float, default=5)
    parser.add_argument("--interval", type=float, default=20, help="milliseconds between the sampler's redeems")
    parser.add_argument("--drain-limit", type=float, default=300)
    arguments = parser.parse_args()

    with open(arguments.transactions) as f:
        signed = [line.strip() for line in f if line.strip()]
    if len(signed) < 2:
        raise SystemExit("evidence-flood.py: need at least two signed transactions")
    problems = []

    connection = connect(arguments.port)
    status, body = call(connection, "POST", "/v1/transactions", json.dumps({"signedTransaction": signed[0]}))
    if status != 200:
        raise SystemExit(f"evidence-flood.py: the flooder's redeem answered {status}: {body[:200]!r}")
    offer = json.loads(body)["downloads"][0]
    size = int(offer["size"])
    if size < 2:
        raise SystemExit("evidence-flood.py: the bundle is too small to flood")

    phase = ["before"]
    stop = threading.Event()
    latencies = {"before": [], "during": []}
    lock = threading.Lock()

    def sampler():
        own = connect(arguments.port)
        turn = 0
        while not stop.is_set():
            jws = signed[1 + turn % (len(signed) - 1)]
            turn += 1
            label = phase[0]
            started = time.perf_counter()
            try:
                status, body = call(own, "POST", "/v1/transactions", json.dumps({"signedTransaction": jws}))
                elapsed = time.perf_counter() - started
                if status != 200:
                    problems.append(f"redeem {status}: {body[:200]!r}")
                else:
                    with lock:
                        latencies[label].append(elapsed)
                    for download in json.loads(body).get("downloads", []):
                        status, _ = call(own, "GET", download["url"])
                        if status != 200:
                            problems.append(f"download {status}")
            except (OSError, http.client.HTTPException) as error:
                problems.append(f"sampler: {error}")
                own.close()
                own = connect(arguments.port)
            stop.wait(arguments.interval / 1000)
        own.close()

    thread = threading.Thread(target=sampler)
    thread.start()
    time.sleep(arguments.before)

    phase[0] = "during"
    flood_started = time.perf_counter()
    stride = 2
    slots = max(1, (size - 1) // stride)
    for request in range(arguments.requests):
        parts = []
        for part in range(arguments.ranges):
            byte = ((request * arguments.ranges + part) % slots) * stride
            parts.append(f"{byte}-{byte}")
        try:
            status, _ = call(connection, "GET", offer["url"], headers={"Range": "bytes=" + ",".join(parts)})
        except (OSError, http.client.HTTPException) as error:
            problems.append(f"flood: {error}")
            break
        if status != 206:
            problems.append(f"flood request answered {status}")
            break
    flood_seconds = time.perf_counter() - flood_started
    connection.close()

    # Until the writer has caught up: recordServed's count steady for a second and no answer waiting.
    drained = None
    last = None
    steady_since = time.perf_counter()
    while True:
        now = time.perf_counter()
        values = metrics(arguments.port, arguments.metrics_token)
        count = sample(values, "depot_ledger_operation_duration_seconds_count", operation="recordServed")
        if count != last:
            last, steady_since = count, now
        elif now - steady_since >= 1 and drained is None:
            drained = steady_since - flood_started
        if drained is not None and now - flood_started >= arguments.after:
            break
        if now - flood_started >= arguments.drain_limit:
            break
        time.sleep(0.2)
    stop.set()
    thread.join()
    values = metrics(arguments.port, arguments.metrics_token)

    def summary(values_ms):
        ordered = sorted(values_ms)
        return {
            "n": len(ordered),
            "p50_ms": round(percentile(ordered, 0.5) * 1000, 2) if ordered else None,
            "p99_ms": round(percentile(ordered, 0.99) * 1000, 2) if ordered else None,
        }

    before, during = summary(latencies["before"]), summary(latencies["during"])
    ratio = None
    if before["p99_ms"] and during["p99_ms"]:
        ratio = round(during["p99_ms"] / before["p99_ms"], 2)
    result = {
        "requests": arguments.requests,
        "ranges": arguments.ranges,
        "flood_seconds": round(flood_seconds, 2),
        "writer_caught_up_seconds": round(drained, 2) if drained is not None else None,
        "before": before,
        "during": during,
        "p99_ratio": ratio,
        "events_dropped": sample(values, "depot_served_events_dropped_total"),
        "ranges_unrecorded_share": sample(values, "depot_served_ranges_unrecorded_total", reason="share"),
        "ranges_unrecorded_bound": sample(values, "depot_served_ranges_unrecorded_total", reason="bound"),
    }
    print(json.dumps(result), flush=True)
    if problems:
        print("evidence-flood.py: " + "; ".join(problems[:10]), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
