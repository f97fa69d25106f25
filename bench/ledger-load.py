#!/usr/bin/env python3
"""Load client for bench/ledger.sh (standard library only).

Phase 1 posts every signed transaction of --transactions (one JWS per line) once to POST /v1/transactions
(verification + ledger writes), phase 2 posts one POST /v1/transactions/{id}/finish per redeemed transaction
with the finish token and the digests the redemption answered (a ledger write each). Each phase runs
--concurrency threads, each on its own keep-alive connection, taking the next request from a shared queue until
all are sent; the rate is requests answered 200 divided by the phase's wall time.

Prints one JSON object per phase on stdout: phase, requests, ok, errors (by status), seconds, rate, and latency
percentiles in milliseconds; plus the server's CPU seconds in the phase when --server-pid is given.

Every redeem and every finish must be answered 200 (and every finish must leave its transaction finished): on
anything else the phase's line is still printed, then the script says what went wrong on standard error (the
first answers that were not 200, with their bodies) and exits 1, without running a later phase.
"""

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time


def cpu_seconds(pid):
    """utime + stime of a process, from /proc (Linux)."""
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None


def percentile(sorted_values, fraction):
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, int(round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def run_phase(name, port, requests, concurrency, server_pid, on_answer):
    """Sends every (path, body) in `requests`; `on_answer(index, status, body)` sees each answer."""
    lock = threading.Lock()
    next_index = [0]
    latencies = []
    errors = {}
    samples = []  # the first few answers that were not 200: "status: body"
    ok = [0]

    def worker():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        local_latencies = []
        while True:
            with lock:
                index = next_index[0]
                next_index[0] += 1
            if index >= len(requests):
                break
            path, body = requests[index]
            payload = json.dumps(body).encode()
            started = time.perf_counter()
            try:
                connection.request("POST", path, body=payload, headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                data = response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                status, data = type(error).__name__, b""
            local_latencies.append(time.perf_counter() - started)
            with lock:
                if status == 200:
                    ok[0] += 1
                else:
                    errors[str(status)] = errors.get(str(status), 0) + 1
                    if len(samples) < 3:
                        samples.append(f"{status}: {data[:300].decode(errors='replace')}")
            on_answer(index, status, data)
        connection.close()
        with lock:
            latencies.extend(local_latencies)

    cpu_before = cpu_seconds(server_pid)
    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    cpu_after = cpu_seconds(server_pid)
    latencies.sort()
    result = {
        "phase": name,
        "requests": len(requests),
        "concurrency": concurrency,
        "ok": ok[0],
        "errors": errors,
        "seconds": round(seconds, 3),
        "rate": round(ok[0] / seconds, 1) if seconds > 0 else None,
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 2) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2) if latencies else None,
        "max_ms": round(latencies[-1] * 1000, 2) if latencies else None,
    }
    if cpu_before is not None and cpu_after is not None:
        result["server_cpu_seconds"] = round(cpu_after - cpu_before, 2)
    return result, samples


def fail(message, samples=()):
    """Stops the run: a benchmark whose requests fail measures nothing."""
    print(f"ledger-load.py: FAIL: {message}", file=sys.stderr)
    for sample in samples:
        print(f"ledger-load.py:   {sample}", file=sys.stderr)
    sys.exit(1)


def table(lines):
    """A Markdown table from lines `ENGINE {json}` (what bench/ledger.sh collects)."""
    print("| engine | phase | requests | connections | per second | p50 ms | p99 ms | server CPU s | CPU ms / request | errors |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for engine, r in parse_lines(lines):
        errors = ", ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "none"
        cpu = r.get("server_cpu_seconds")
        per_request = f"{cpu * 1000 / r['requests']:.2f}" if isinstance(cpu, (int, float)) and r["requests"] else "-"
        cells = [engine, r["phase"], r["requests"], r["concurrency"], r["rate"], r["p50_ms"], r["p99_ms"],
                 "-" if cpu is None else cpu, per_request, errors]
        print("| " + " | ".join(str(c) for c in cells) + " |")


def parse_lines(lines):
    """(label, result) pairs from lines `ENGINE {json}`."""
    return [(line.split(" ", 1)[0], json.loads(line.split(" ", 1)[1])) for line in lines if line.strip()]


def write_csv(lines, path):
    """One row per engine (or build), phase and connection count: the figures the picture is drawn from."""
    with open(path, "w") as f:
        f.write("engine,phase,connections,requests,per_second,p50_ms,p99_ms,cpu_ms_per_request\n")
        for label, r in parse_lines(lines):
            cpu = r.get("server_cpu_seconds")
            per_request = f"{cpu * 1000 / r['requests']:.3f}" if isinstance(cpu, (int, float)) and r["requests"] else ""
            f.write(f"{label},{r['phase']},{r['concurrency']},{r['requests']},{r['rate']},{r['p50_ms']},{r['p99_ms']},"
                    f"{per_request}\n")


def gnuplot_script(csv_path, png_path, title):
    """A gnuplot script drawing rate and CPU per request against connections, one line per engine, per phase."""
    import csv
    rows = list(csv.DictReader(open(csv_path)))
    labels = list(dict.fromkeys(r["engine"] for r in rows))
    phases = [p for p in ("redeem", "finish") if any(r["phase"] == p for r in rows)]
    connections = sorted({int(r["connections"]) for r in rows})
    blocks = []  # gnuplot inline data: one block per (phase, label), index = position in this list
    for phase in phases:
        for label in labels:
            points = sorted((int(r["connections"]), r["per_second"], r["cpu_ms_per_request"] or "NaN")
                            for r in rows if r["engine"] == label and r["phase"] == phase)
            blocks.append((phase, label, points))
    data = "$data << EOD\n" + "\n\n\n".join("\n".join(f"{c} {rate} {cpu}" for c, rate, cpu in points)
                                           for _, _, points in blocks) + "\nEOD\n"
    xtics = ", ".join(f'"{c}" {c}' for c in connections)
    script = [data, 'set terminal pngcairo size 1300,800 font "sans,11" noenhanced', f'set output "{png_path}"',
              f'set multiplot layout 2,{len(phases)} title "{title}"', "set logscale x 2",
              f"set xrange [{connections[0] / 1.5}:{connections[-1] * 1.5}]", f"set xtics ({xtics})",
              'set xlabel "connections"', "set key outside right top", "set grid", "set yrange [0:*]"]
    for column, ylabel, what in ((2, "per second", "answered per second"), (3, "server CPU ms", "server CPU ms per request")):
        for phase in phases:
            plots = [f'$data index {i} using 1:{column} with linespoints lw 2 pt 7 title "{label}"'
                     for i, (p, label, _) in enumerate(blocks) if p == phase]
            script += [f'set ylabel "{ylabel}"', f'set title "{phase}: {what}"', "plot " + ", ".join(plots)]
    script.append("unset multiplot")
    return "\n".join(script) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int)
    parser.add_argument("--transactions", help="file with one signed transaction (JWS) per line")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--server-pid", type=int, default=0)
    parser.add_argument("--between-phases", metavar="COMMAND",
                        help="a shell command run after the redemptions and before the finishes (it must succeed)")
    parser.add_argument("--table", action="store_true", help="read `ENGINE {json}` lines on stdin, print Markdown")
    parser.add_argument("--csv", metavar="PATH", help="with --table: also write the figures as CSV to PATH")
    parser.add_argument("--plot", nargs=3, metavar=("CSV", "PNG", "TITLE"),
                        help="print a gnuplot script drawing the CSV of --csv into PNG")
    arguments = parser.parse_args()
    if arguments.plot:
        print(gnuplot_script(*arguments.plot), end="")
        return
    if arguments.table:
        lines = list(sys.stdin)
        table(lines)
        if arguments.csv:
            write_csv(lines, arguments.csv)
        return
    if not arguments.port or not arguments.transactions:
        parser.error("--port and --transactions are required")

    with open(arguments.transactions) as f:
        signed = [line.strip() for line in f if line.strip()]
    redeem_requests = [("/v1/transactions", {"signedTransaction": jws}) for jws in signed]
    redeemed = [None] * len(redeem_requests)

    def remember(index, status, data):
        if status == 200:
            try:
                answer = json.loads(data)
                transaction = answer["transaction"]
            except (ValueError, KeyError):
                return  # counted below as a redeem without a usable answer
            try:
                redeemed[index] = (
                    transaction["id"],
                    {
                        "finishToken": transaction["finishToken"],
                        "delivered": [{"contentId": d["contentId"], "digest": d["digest"]}
                                      for d in answer["downloads"]],
                    },
                )
            except (KeyError, TypeError):
                pass

    result, samples = run_phase("redeem", arguments.port, redeem_requests, arguments.concurrency,
                                arguments.server_pid, remember)
    print(json.dumps(result), flush=True)
    if result["ok"] != len(signed):
        fail(f"{len(signed) - result['ok']} of {len(signed)} redeems were not answered 200: {result['errors']}", samples)

    if arguments.between_phases:
        subprocess.run(arguments.between_phases, shell=True, check=True)
    unusable = sum(1 for r in redeemed if r is None)
    if unusable:
        fail(f"{unusable} redeem answers lacked transaction.id, transaction.finishToken or downloads")
    finish_requests = [(f"/v1/transactions/{tid}/finish", body) for tid, body in redeemed]
    finished_states = {}
    states_lock = threading.Lock()

    def check(index, status, data):
        if status == 200:
            state = json.loads(data)["transaction"]["state"]
            with states_lock:
                finished_states[state] = finished_states.get(state, 0) + 1

    result, samples = run_phase("finish", arguments.port, finish_requests, arguments.concurrency,
                                arguments.server_pid, check)
    if finished_states.get("finished", 0) != result["ok"]:
        result["unexpected_states"] = finished_states
    print(json.dumps(result), flush=True)
    if result["ok"] != len(finish_requests):
        fail(f"{len(finish_requests) - result['ok']} of {len(finish_requests)} finishes were not answered 200: "
             f"{result['errors']}", samples)
    if "unexpected_states" in result:
        fail(f"finishes answered 200 left transactions in these states: {finished_states}")


if __name__ == "__main__":
    main()
