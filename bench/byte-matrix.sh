#!/usr/bin/env bash
# The byte path across sizes and concurrencies: Depot against nginx as users configure it, on the same bundle
# files, in one run, each case's servers measured one after the other.
#
#   bash bench/byte-matrix.sh            # about 9 minutes after the release build; report, CSV and PNG in bench/results/
#   MATRIX_CASES="16k 4m" MATRIX_CONNS="4" MATRIX_DURATION=10 bash bench/byte-matrix.sh
#
# Cases (MATRIX_CASES): whole bundles of 16k, 1m, 4m and 64m (16 KiB, 1 MiB, 4 MiB, 64 MiB of incompressible
# bytes, stored), and `range`: 64 KiB ranges at random 64 KiB-aligned offsets of the 64 MiB bundle. Each case runs
# at each connection count of MATRIX_CONNS (default 1 4 64 256) with wrk (threads: min(connections, 2)).
#
# Servers, each measured for every case and concurrency (the order rotates from one cell to the next):
#   depot        `depot serve` with the bundles built from the packs at start (checks every request's grant)
#   nginx        nginx as its users configure it for static files: `worker_processes` = cores, `sendfile on`,
#                `tcp_nopush on`, `access_log off`, `keepalive_requests 100000` (wrk keeps its connections)
#   nginx-tuned  the same plus `listen ... reuseport` and `open_file_cache` (what bench/byte-path.sh compares with)
#
# Figures per cell and server: responses/s, MiB/s, p99 latency, and the server's CPU (user + system, all its
# processes, from /proc) per response. The ratio columns divide Depot's responses/s by each nginx's; the report
# lists every cell below 1.0. With gnuplot on the PATH it also draws both ratio grids as heat maps (PNG beside the
# report; MATRIX_PLOT=0 skips the picture).
#
# Environment:
#   MATRIX_CASES="16k 1m 4m 64m range"   MATRIX_CONNS="1 4 64 256"
#   MATRIX_DURATION=5    seconds measured per cell and server     MATRIX_WARMUP=2   seconds of warm-up before each
#   MATRIX_PLOT=1        draw the heat maps (gnuplot)              BENCH_RESULTS_DIR=bench/results
#   DEPOT_BIN=path       run that depot (any build; nothing is built); BENCH_SKIP_BUILD=1: the release build as is
#   MATRIX_TIME_LIMIT    seconds for everything after the build (default: from the number of cells)
#   MATRIX_SYSCALLS=0    1: after each measured run, one more run of MATRIX_SYSCALL_SECONDS (3) under `strace -c -f`
#                        counts each server's system calls; the report adds, per cell, the calls per response of each
#                        server side by side (strace slows the servers: these runs' rates are not reported)
#
# Before measuring, every case is fetched from each server with curl and checked (status, length, sha256 of the
# bundle or of the range's bytes); during the runs any non-2xx answer, connect error, or a body size per response
# other than the case's stops the script.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=$ROOT/bench
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

CASES=${MATRIX_CASES:-16k 1m 4m 64m range}
CONNS=${MATRIX_CONNS:-1 4 64 256}
DURATION=${MATRIX_DURATION:-5}
WARMUP=${MATRIX_WARMUP:-2}
PLOT=${MATRIX_PLOT:-1}
SYSCALLS=${MATRIX_SYSCALLS:-0}
SYSCALL_SECONDS=${MATRIX_SYSCALL_SECONDS:-3}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$BENCH_DIR/results}
SERVERS=(depot nginx nginx-tuned)
RANGE_BYTES=65536
SEED=20260301
CORES=$(nproc)

for tool in wrk nginx curl openssl sha256sum; do command -v "$tool" >/dev/null || die "$tool is not installed"; done
[[ $PLOT == 0 ]] || command -v gnuplot >/dev/null || die "gnuplot is not installed (apt-get install gnuplot-nox), or set MATRIX_PLOT=0"
[[ $SYSCALLS == 0 ]] || command -v strace >/dev/null || die "strace is not installed (apt-get install strace), or set MATRIX_SYSCALLS=0"
for case in $CASES; do
    case $case in 16k | 1m | 4m | 64m | range) ;; *) die "unknown case '$case' in MATRIX_CASES (16k 1m 4m 64m range)" ;; esac
done
for conns in $CONNS; do [[ $conns =~ ^[1-9][0-9]*$ ]] || die "MATRIX_CONNS holds '$conns', not a connection count"; done

build_depot_release "$ROOT"
cells=$(($(wc -w <<<"$CASES") * $(wc -w <<<"$CONNS")))
start_scratch depot-byte-matrix
per_run=$((DURATION + WARMUP + 4))
[[ $SYSCALLS == 0 ]] || per_run=$((per_run + SYSCALL_SECONDS + 6))
start_watchdog "${MATRIX_TIME_LIMIT:-$((cells * ${#SERVERS[@]} * per_run + 240))}"
mkdir -p "$RESULTS_DIR"

# The payload of each case's pack: the bundle adds a few hundred bytes of ZIP records. `range` reads the 64m bundle.
payload_of() { case $1 in 16k) echo 16000 ;; 1m) echo $((1 << 20)) ;; 4m) echo $((4 << 20)) ;; 64m | range) echo $((64 << 20)) ;; esac; }
pack_of() { case $1 in range) echo 64m ;; *) echo "$1" ;; esac; }
PACKS=$(for case in $CASES; do pack_of "$case"; done | sort -u)

log "generating packs: $PACKS"
cp -R "$ROOT/Config" "$TMP/config"
{
    echo '{"products": ['
    first=1
    for pack in $PACKS; do
        ((first)) || echo ','
        first=0
        printf '  {"id": "bench.%s", "type": "nonConsumable", "title": "Byte matrix: %s"}' "$pack" "$pack"
    done
    echo ']}'
} >"$TMP/config/products.json"
key=0
for pack in $PACKS; do
    key=$((key + 1))
    make_pack "$TMP/content/$pack-1.0" "bench.$pack" "$(payload_of "$pack")" "$(printf '%032x' "$key")"
done

DEPOT_PORT=$(pick_port "$(random_base_port)")
USED_PORTS+=("$DEPOT_PORT")
NGINX_PORT=$(pick_port $((DEPOT_PORT + 1)))
USED_PORTS+=("$NGINX_PORT")
TUNED_PORT=$(pick_port $((NGINX_PORT + 1)))

log "starting depot on 127.0.0.1:$DEPOT_PORT (builds the bundles first)"
start_depot_serve "$DEPOT_PORT" 180

declare -A DIGEST FILE SIZE GRANT
for pack in $PACKS; do
    DIGEST[$pack]=$(logged_digest "$TMP/depot.log" "bench.$pack")
    [[ -n ${DIGEST[$pack]} ]] || { cat "$TMP/depot.log" >&2; die "depot did not log the bundle of bench.$pack"; }
    FILE[$pack]=$TMP/data/bundles/${DIGEST[$pack]:0:2}/${DIGEST[$pack]}.zip
    [[ -f ${FILE[$pack]} ]] || die "no bundle file at ${FILE[$pack]}"
    SIZE[$pack]=$(stat -c %s "${FILE[$pack]}")
    payload=$(payload_of "$pack")
    ((SIZE[$pack] > payload && SIZE[$pack] < payload + 4096)) || die "bench.$pack's bundle is ${SIZE[$pack]} bytes: not stored"
    GRANT[$pack]=$(dev_grant "${DIGEST[$pack]}")
    [[ -n ${GRANT[$pack]} ]] || die "depot dev grant printed nothing"
    cat "${FILE[$pack]}" >/dev/null # in the page cache for every server alike
done

# nginx: $1 name, $2 port, $3 "tuned" or "plain".
start_nginx() {
    local name=$1 port=$2 kind=$3 dir=$TMP/$1 listen_extra="" cache=""
    mkdir -p "$dir/logs"
    if [[ $kind == tuned ]]; then
        listen_extra=" reuseport"
        cache="    open_file_cache max=64 inactive=600s;
    open_file_cache_valid 600s;"
    fi
    cat >"$dir/nginx.conf" <<EOF_NGINX
$(nginx_user_line)
worker_processes $CORES;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
$(nginx_temp_paths "$dir")
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
$cache
    types { }
    default_type application/zip;
    server {
        listen 127.0.0.1:$port$listen_extra;
        location ~ "^/v1/bundles/([0-9a-f]{2})([0-9a-f]{62})\$" { alias $TMP/data/bundles/\$1/\$1\$2.zip; }
    }
}
EOF_NGINX
    nginx -p "$dir" -c "$dir/nginx.conf" 2>"$dir/logs/start.log" &
    PIDS+=($!)
    eval "${name//-/_}_PID=$!"
    for ((i = 0; i < 100; i++)); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
        sleep 0.1
    done
    cat "$dir/logs/start.log" "$dir/logs/error.log" >&2
    die "$name did not start on port $port"
}
start_nginx nginx "$NGINX_PORT" plain
start_nginx nginx-tuned "$TUNED_PORT" tuned

port_of() { case $1 in depot) echo "$DEPOT_PORT" ;; nginx) echo "$NGINX_PORT" ;; nginx-tuned) echo "$TUNED_PORT" ;; esac; }
pid_of() { case $1 in depot) echo "$DEPOT_PID" ;; nginx) echo "$nginx_PID" ;; nginx-tuned) echo "$nginx_tuned_PID" ;; esac; }
body_of() { case $1 in range) echo $RANGE_BYTES ;; *) echo "${SIZE[$1]}" ;; esac; }

# CPU ticks (user + system) of a server: the process and its children (nginx's workers).
cpu_ticks() {
    local pid=$1 total=0 child
    for child in $pid $(pgrep -P "$pid" || true); do
        local line fields
        line=$(<"/proc/$child/stat") || continue
        # Fields 14 and 15 (utime, stime), counted after the command name, which may hold spaces.
        read -r -a fields <<<"${line##*) }"
        total=$((total + fields[11] + fields[12]))
    done
    echo "$total"
}
TICKS=$(getconf CLK_TCK)

# Every case checked on every server with curl before anything is measured.
log "checking every case on every server"
for case in $CASES; do
    pack=$(pack_of "$case")
    for server in "${SERVERS[@]}"; do
        url="http://127.0.0.1:$(port_of "$server")/v1/bundles/${DIGEST[$pack]}"
        if [[ $case == range ]]; then
            got=$(curl -s -o "$TMP/check" -w '%{http_code} %{size_download}' -H "Authorization: Bearer ${GRANT[$pack]}" \
                -H "Range: bytes=131072-196607" "$url")
            [[ $got == "206 $RANGE_BYTES" ]] || die "$server answered '$got' to a 64 KiB range of bench.$pack"
            expected=$(dd if="${FILE[$pack]}" bs=$RANGE_BYTES skip=2 count=1 2>/dev/null | sha256sum | cut -d' ' -f1)
        else
            got=$(curl -s -o "$TMP/check" -w '%{http_code} %{size_download}' -H "Authorization: Bearer ${GRANT[$pack]}" "$url")
            [[ $got == "200 ${SIZE[$pack]}" ]] || die "$server answered '$got' to bench.$pack (expected 200 ${SIZE[$pack]})"
            expected=${DIGEST[$pack]}
        fi
        [[ $(sha256sum <"$TMP/check" | cut -d' ' -f1) == "$expected" ]] || die "$server sent other bytes for $case"
    done
done
refused=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$DEPOT_PORT/v1/bundles/${DIGEST[$(pack_of "${CASES%% *}")]}")
[[ $refused == 401 ]] || die "depot answered $refused to a request without a grant (expected 401)"

# wrk for one cell: $1 case, $2 connections, $3 server, $4 seconds, $5 output file.
run_wrk() {
    local case=$1 conns=$2 server=$3 seconds=$4 out=$5 pack env=()
    pack=$(pack_of "$case")
    [[ $case == range ]] && env=(BENCH_RANGE_SIZE=$RANGE_BYTES "BENCH_RANGE_FILE_SIZE=${SIZE[$pack]}" BENCH_SEED=$SEED)
    env "${env[@]}" timeout -k 5 $((seconds + 30)) wrk -t"$((conns < 2 ? conns : 2))" -c"$conns" -d"${seconds}s" \
        --timeout 30s --latency -s "$BENCH_DIR/wrk-bench.lua" -H "Authorization: Bearer ${GRANT[$pack]}" \
        "http://127.0.0.1:$(port_of "$server")/v1/bundles/${DIGEST[$pack]}" >"$out" 2>&1
}
field() { grep -o "$1=[0-9]*" <<<"$2" | cut -d= -f2; }

# System calls per response of one server in one cell: a run of SYSCALL_SECONDS under `strace -c -f` (every thread
# of every process of the server), appended to $SYSCALL_CSV as case,connections,server,syscall,calls_per_response.
count_syscalls() {
    local case=$1 conns=$2 server=$3 pid targets=() child strace_pid line responses
    pid=$(pid_of "$server")
    for child in $pid $(pgrep -P "$pid" || true); do targets+=(-p "$child"); done
    strace -c -f -q -o "$TMP/strace.txt" "${targets[@]}" 2>"$TMP/strace.err" &
    strace_pid=$!
    sleep 1 # strace attaches to every thread before the run starts
    kill -0 "$strace_pid" 2>/dev/null || die "strace could not attach to $server: $(cat "$TMP/strace.err")"
    run_wrk "$case" "$conns" "$server" "$SYSCALL_SECONDS" "$TMP/wrk-strace.txt" || die "wrk under strace failed: $(cat "$TMP/wrk-strace.txt")"
    kill -INT "$strace_pid"
    wait "$strace_pid" || true
    line=$(grep '^BENCH ' "$TMP/wrk-strace.txt") || die "wrk under strace printed no summary"
    responses=$(field requests "$line")
    ((responses > 0)) || die "$server answered nothing under strace in $case at $conns connections"
    python3 - "$TMP/strace.txt" "$responses" "$case,$conns,$server" >>"$SYSCALL_CSV" <<'EOF_PY'
import sys
path, responses, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for line in open(path):
    parts = line.split()
    # "% time  seconds  usecs/call  calls  [errors]  syscall"; the header, rulers and the total are skipped.
    if len(parts) < 5 or not parts[3].isdigit() or parts[-1] == "total":
        continue
    print(f"{prefix},{parts[-1]},{int(parts[3]) / responses:.3f}")
EOF_PY
}

STAMP=$(date -u +%Y-%m-%d-%H%M%S)
CSV=$RESULTS_DIR/byte-matrix-$STAMP.csv
echo "case,connections,server,responses_per_s,mib_per_s,p99_ms,cpu_us_per_response" >"$CSV"
SYSCALL_CSV=$RESULTS_DIR/byte-matrix-$STAMP-syscalls.csv
[[ $SYSCALLS == 0 ]] || echo "case,connections,server,syscall,calls_per_response" >"$SYSCALL_CSV"
declare -A RATE
rotation=0
for case in $CASES; do
    for conns in $CONNS; do
        order=("${SERVERS[@]:rotation}" "${SERVERS[@]:0:rotation}")
        rotation=$(((rotation + 1) % ${#SERVERS[@]}))
        for server in "${order[@]}"; do
            log "$case, $conns connections: $server"
            run_wrk "$case" "$conns" "$server" "$WARMUP" "$TMP/warmup.txt" || die "wrk warm-up failed: $(cat "$TMP/warmup.txt")"
            pid=$(pid_of "$server")
            before=$(cpu_ticks "$pid")
            run_wrk "$case" "$conns" "$server" "$DURATION" "$TMP/wrk.txt" || die "wrk failed: $(cat "$TMP/wrk.txt")"
            after=$(cpu_ticks "$pid")
            line=$(grep '^BENCH ' "$TMP/wrk.txt") || die "wrk printed no summary: $(cat "$TMP/wrk.txt")"
            requests=$(field requests "$line")
            bytes=$(field bytes "$line")
            errors=$(($(field status_errors "$line") + $(field connect_errors "$line") + $(field read_errors "$line") + $(field timeouts "$line")))
            ((errors == 0)) || die "$server: $errors errors in $case at $conns connections: $line"
            ((requests > 0)) || die "$server answered nothing in $case at $conns connections"
            # Each response is its body and a few hundred bytes of header; wrk also counts the bytes of the responses
            # still arriving when the run ended (at most one body per connection). Anything else (an error body, a
            # whole bundle for a range) is not.
            body=$(body_of "$case")
            ((bytes >= requests * body && bytes <= requests * (body + 1024) + conns * body)) ||
                die "$server sent $bytes bytes for $requests responses in $case (body $body, $conns connections)"
            duration_us=$(field duration_us "$line")
            read -r rate mib p99 cpu < <(python3 -c "
r, b, d, p, t, k = $requests, $bytes, $duration_us, $(field p99_us "$line"), $((after - before)), $TICKS
print(f'{r / (d / 1e6):.1f} {b / (d / 1e6) / 1048576:.1f} {p / 1000:.2f} {t / k * 1e6 / r:.1f}')")
            RATE[$case,$conns,$server]=$rate
            echo "$case,$conns,$server,$rate,$mib,$p99,$cpu" >>"$CSV"
            [[ $SYSCALLS == 0 ]] || count_syscalls "$case" "$conns" "$server"
        done
    done
done

# The report: one table per case, the ratios, and the cells below 1.0.
REPORT=$RESULTS_DIR/byte-matrix-$STAMP.md
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
syscall_csv=""
[[ $SYSCALLS == 0 ]] || syscall_csv=$SYSCALL_CSV
python3 - "$CSV" "$REPORT" "$STAMP" "$(depot_provenance "$DEPOT" "$ROOT")" "$DEPOT" "$DURATION" "$WARMUP" \
    "$syscall_csv" "$SYSCALL_SECONDS" <<'EOF_PY'
import csv, sys
from collections import defaultdict
path, report, stamp, commit, depot, duration, warmup, syscall_path, syscall_seconds = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
cell = defaultdict(dict)
for r in rows:
    cell[(r["case"], int(r["connections"]))][r["server"]] = r
cases = list(dict.fromkeys(r["case"] for r in rows))
conns = sorted({int(r["connections"]) for r in rows})
title = {"16k": "16 KiB bundle", "1m": "1 MiB bundle", "4m": "4 MiB bundle", "64m": "64 MiB bundle",
         "range": "64 KiB ranges of the 64 MiB bundle"}
out = [f"# Byte path matrix, {stamp} UTC", "",
       f"{commit[0].upper() + commit[1:]}; {duration} s measured per cell and server after {warmup} s of warm-up;",
       "servers measured one after the other in each cell, the order rotating. Ratio: Depot's responses/s over nginx's.",
       "CPU: the server's user + system time per response (all its processes).", ""]
below = []
for case in cases:
    out += [f"## {title.get(case, case)}", "",
            "| connections | depot resp/s | nginx resp/s | nginx-tuned resp/s | depot/nginx | depot/nginx-tuned "
            "| depot MiB/s | p99 ms depot / nginx / tuned | CPU µs/resp depot / nginx / tuned |",
            "|---|---|---|---|---|---|---|---|---|"]
    for c in conns:
        s = cell.get((case, c))
        if not s or len(s) < 3:
            continue
        d, n, t = s["depot"], s["nginx"], s["nginx-tuned"]
        rn = float(d["responses_per_s"]) / float(n["responses_per_s"])
        rt = float(d["responses_per_s"]) / float(t["responses_per_s"])
        for name, ratio in (("nginx", rn), ("nginx-tuned", rt)):
            if ratio < 1.0:
                below.append(f"- {title.get(case, case)}, {c} connections: {ratio:.2f} of {name}")
        out.append(f"| {c} | {d['responses_per_s']} | {n['responses_per_s']} | {t['responses_per_s']} | {rn:.2f} | {rt:.2f} "
                   f"| {d['mib_per_s']} | {d['p99_ms']} / {n['p99_ms']} / {t['p99_ms']} "
                   f"| {d['cpu_us_per_response']} / {n['cpu_us_per_response']} / {t['cpu_us_per_response']} |")
    out.append("")
out += ["## Cells below 1.0", ""] + (below or ["None."]) + [""]
if syscall_path:
    calls = defaultdict(lambda: defaultdict(dict))  # (case, connections) -> syscall -> server -> calls per response
    for r in csv.DictReader(open(syscall_path)):
        calls[(r["case"], int(r["connections"]))][r["syscall"]][r["server"]] = float(r["calls_per_response"])
    out += ["## System calls per response", "",
            f"From one more run of {syscall_seconds} s per cell and server under `strace -c -f` (all threads and processes).",
            "Every system call made at least 0.05 times per response by one of the servers.", ""]
    for case in cases:
        for c in conns:
            table = calls.get((case, c))
            if not table:
                continue
            out += [f"### {title.get(case, case)}, {c} connections", "",
                    "| system call | depot | nginx | nginx-tuned |", "|---|---|---|---|"]
            totals = {name: sum(t.get(name, 0) for t in table.values()) for name in ("depot", "nginx", "nginx-tuned")}
            for name, servers in sorted(table.items(), key=lambda kv: -max(kv[1].values())):
                if max(servers.values()) >= 0.05:
                    out.append(f"| {name} | " + " | ".join(f"{servers.get(s, 0):.2f}" for s in ("depot", "nginx", "nginx-tuned")) + " |")
            out += ["| **all** | " + " | ".join(f"**{totals[s]:.2f}**" for s in ("depot", "nginx", "nginx-tuned")) + " |", ""]
open(report, "w").write("\n".join(out))
# The heat map's data: one block per nginx, rows = cases, columns = connection counts.
with open(path.replace(".csv", ".dat"), "w") as f:
    for name in ("nginx", "nginx-tuned"):
        for y, case in enumerate(cases):
            for x, c in enumerate(conns):
                s = cell.get((case, c), {})
                if len(s) == 3:
                    f.write(f"{x} {y} {float(s['depot']['responses_per_s']) / float(s[name]['responses_per_s']):.3f}\n")
            f.write("\n")
        f.write("\n")
with open(path.replace(".csv", ".labels"), "w") as f:
    f.write(" ".join(f'"{title.get(c, c).replace(" bundle", "").replace(" of the 64 MiB", "")}" {i}' for i, c in enumerate(cases)) + "\n")
    f.write(" ".join(f'"{c}" {i}' for i, c in enumerate(conns)) + "\n")
EOF_PY

if [[ $PLOT != 0 ]]; then
    PNG=$RESULTS_DIR/byte-matrix-$STAMP.png
    DAT=${CSV%.csv}.dat
    LABELS=${CSV%.csv}.labels
    ylabels=$(sed -n 1p "$LABELS" | sed 's/" \([0-9]*\)/" \1,/g; s/,$//')
    xlabels=$(sed -n 2p "$LABELS" | sed 's/" \([0-9]*\)/" \1,/g; s/,$//')
    gnuplot <<EOF_GP || die "gnuplot failed"
set terminal pngcairo size 1200,520 font "sans,11" noenhanced
set output "$PNG"
set multiplot layout 1,2 title "Depot / nginx, responses per second ($STAMP, $commit): above 1.0 Depot is faster"
set view map
set cbrange [0.5:1.5]
set palette defined (0.5 "#b2182b", 1.0 "#f7f7f7", 1.5 "#2166ac")
set xtics ($xlabels)
set ytics ($ylabels)
set xlabel "connections"
unset key
set title "against nginx (sendfile, tcp_nopush, workers = cores)"
plot "$DAT" index 0 using 1:2:3 with image, "" index 0 using 1:2:(sprintf("%.2f", \$3)) with labels
set title "against nginx-tuned (+ reuseport, open_file_cache)"
plot "$DAT" index 1 using 1:2:3 with image, "" index 1 using 1:2:(sprintf("%.2f", \$3)) with labels
unset multiplot
EOF_GP
    echo "" >>"$REPORT"
    echo "![Depot / nginx per cell]($(basename "$PNG"))" >>"$REPORT"
fi
rm -f "${CSV%.csv}.dat" "${CSV%.csv}.labels"
log "report: $REPORT"
cat "$REPORT"
