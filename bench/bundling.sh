#!/usr/bin/env bash
# Bundling benchmark: Depot's bundler (BundleWriter, as the store runs it) against `zip -r -6 -X -q` over
# the same deterministic mixed pack (bench/bundling-pack.py, ~144 MiB at scale 1): wall time, CPU time,
# output size and peak RSS (GNU time's %M), medians over RUNS alternating runs after one warm-up each.
# Checks on the way that every Depot run gives the same digest and that `unzip -t` accepts the bundle.
#
#   bench/bundling.sh                  # the comparison (RUNS=5)
#   HUGE_MIB=1536 bench/bundling.sh    # also: peak RSS bundling a pack holding one 1.5 GiB file
#
# Environment: RUNS (5), WORK (/tmp/depot-bundling-bench: packs and outputs, reused across runs),
# THREADS (Depot's default: one per CPU, at most 8), SCALE (1), HUGE_MIB (0: skip the large-file run),
# QUIET_WAIT (120: before each timed run, wait up to this many seconds for the CPUs to be 90% idle, so a
# machine shared with other work gives comparable runs; 0 disables). Prints a Markdown table.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-5}
work=${WORK:-/tmp/depot-bundling-bench}
scale=${SCALE:-1}
huge_mib=${HUGE_MIB:-0}
cpus=$(nproc)
threads=${THREADS:-$(( cpus < 8 ? cpus : 8 ))}  # the bundler's own default when THREADS is unset

if [[ ! -x /usr/bin/time ]]; then
    echo "GNU time is missing: apt-get install -y time" >&2
    exit 1
fi
command -v zip >/dev/null || { echo "zip is missing: apt-get install -y zip" >&2; exit 1; }

echo "building the release bundler..." >&2
swift build -c release --package-path "$here/bundler" >&2
bundler="$(swift build -c release --package-path "$here/bundler" --show-bin-path)/bundler"

# A pack is regenerated only when the generator or its arguments change.
make_pack() {  # DIR ARGS...
    local dir=$1
    shift
    local stamp
    stamp="$(sha256sum "$here/bundling-pack.py" | cut -d' ' -f1) $*"
    if [[ ! -f "$dir.stamp" || "$(cat "$dir.stamp")" != "$stamp" ]]; then
        echo "generating $dir ($*)..." >&2
        rm -rf "$dir" "$dir.stamp"
        python3 "$here/bundling-pack.py" "$dir" "$@"
        echo "$stamp" >"$dir.stamp"
    fi
}

mkdir -p "$work"
make_pack "$work/pack" --scale "$scale"
pack="$work/pack"

# wait_quiet: waits (up to QUIET_WAIT seconds) until the CPUs were at least 90% idle over one second.
# Counts runs that started on a busy machine in $busy_runs.
quiet_wait=${QUIET_WAIT:-120}
busy_runs=0
wait_quiet() {
    local deadline=$((SECONDS + quiet_wait)) a b
    (( quiet_wait > 0 )) || return 0
    while :; do
        a=($(head -1 /proc/stat))
        sleep 1
        b=($(head -1 /proc/stat))
        local total=0 k
        for k in 1 2 3 4 5 6 7 8; do total=$((total + b[k] - a[k])); done
        (( total > 0 && 100 * (b[4] - a[4]) >= 90 * total )) && return 0
        if (( SECONDS >= deadline )); then
            busy_runs=$((busy_runs + 1))
            return 0
        fi
    done
}

# measure NAME OUTPUT COMMAND...: runs COMMAND, appends "wall user sys maxrss_kb" to $work/NAME.times.
measure() {
    local name=$1 output=$2
    shift 2
    rm -f "$output"
    wait_quiet
    /usr/bin/time -f '%e %U %S %M' -o "$work/$name.last" "$@" >"$work/$name.stdout"
    cat "$work/$name.last" >>"$work/$name.times"
}

depot_run() { measure depot "$work/depot.zip" "$bundler" "$pack" "$work/depot.zip" --threads "$threads"; }
zip_run() {
    pushd "$pack" >/dev/null
    measure zip "$work/zip.zip" zip -r -6 -X -q "$work/zip.zip" .
    popd >/dev/null
}

rm -f "$work"/*.times
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
depot_run && zip_run  # warm-up: both read the pack from the page cache afterwards
rm -f "$work"/*.times
digests=()
for _ in $(seq "$runs"); do
    depot_run
    digests+=("$(cut -d' ' -f1 "$work/depot.stdout")")
    zip_run
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [[ $(printf '%s\n' "${digests[@]}" | sort -u | wc -l) != 1 ]]; then
    echo "Depot's bundle differed between runs: ${digests[*]}" >&2
    exit 1
fi
unzip -tq "$work/depot.zip" >/dev/null || { echo "unzip -t rejected Depot's bundle" >&2; exit 1; }

# summary NAME OUTPUT: a table row from the medians of NAME's runs.
summary() {
    python3 - "$work/$1.times" "$2" "$1" <<'EOF'
import os, statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
wall = statistics.median(r[0] for r in rows)
cpu = statistics.median(r[1] + r[2] for r in rows)
rss = statistics.median(r[3] for r in rows) / 1024
size = os.path.getsize(sys.argv[2])
print(f"| {sys.argv[3]} | {wall:.2f} | {min(r[0] for r in rows):.2f} | {cpu:.2f} | {size:,} | {rss:.1f} |")
EOF
}

files=$(find "$pack" -type f | wc -l)
bytes=$(du -sb "$pack" | cut -f1)
echo
echo "Pack: $files files, $bytes bytes ($(awk "BEGIN {printf \"%.1f\", $bytes / 1048576}") MiB); $runs runs each, alternating."
echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load $load_before before, $load_after after;"
echo "$busy_runs of $((2 * runs)) timed runs started without the CPUs 90% idle (QUIET_WAIT=$quiet_wait s)."
zlib=$(dpkg-query -W -f='${Version}' zlib1g 2>/dev/null || echo unknown)
echo "System zlib $zlib; Info-ZIP $(zip -v | sed -n 2p | awk '{print $3, $4}')."
echo
echo "| tool | wall s (median) | wall s (best) | CPU s (user+sys, median) | output bytes | peak RSS MiB |"
echo "|---|---|---|---|---|---|"
summary depot "$work/depot.zip" | sed "s/^| depot /| Depot bundler, $threads threads /"
summary zip "$work/zip.zip" | sed 's/^| zip /| zip -r -6 -X -q /'

if (( huge_mib > 0 )); then
    make_pack "$work/huge" --scale 0 --huge-mib "$huge_mib"
    echo
    echo "One file of $huge_mib MiB (mixed: text, integer tables, random), peak RSS:"
    echo
    echo "| threads | wall s | CPU s | output bytes | peak RSS MiB |"
    echo "|---|---|---|---|---|"
    # The executable's own footprint (Swift runtime, Foundation), bundling a one-file pack.
    mkdir -p "$work/tiny/Contents"
    cp "$pack/pack.json" "$work/tiny/"
    echo tiny >"$work/tiny/Contents/a.txt"
    rm -f "$work/tiny.zip"
    /usr/bin/time -f '%M' -o "$work/tiny.times" "$bundler" "$work/tiny" "$work/tiny.zip" >/dev/null
    awk '{ printf "| (baseline: a one-file pack) | | | | %.1f |\n", $1 / 1024 }' "$work/tiny.times"
    for t in $(printf '%s\n' "$threads" 1 | uniq); do
        rm -f "$work/huge.zip"
        wait_quiet
        /usr/bin/time -f '%e %U %S %M' -o "$work/huge.times" \
            "$bundler" "$work/huge" "$work/huge.zip" --threads "$t" >/dev/null
        awk -v t="$t" -v size="$(stat -c %s "$work/huge.zip")" \
            '{ printf "| %s | %.2f | %.2f | %d | %.1f |\n", t, $1, $2 + $3, size, $4 / 1024 }' "$work/huge.times"
    done
    rm -f "$work/huge.zip"
fi
