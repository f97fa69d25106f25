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
# machine shared with other work gives comparable runs; 0 disables), DIVIDE (1: bundling-pack.py --divide, a
# smaller pack of the same kinds of files), BUNDLER (a bundler binary already built from bench/bundler: no
# build), BENCH_RESULTS_DIR (bench/results: where the report is written). Prints a Markdown report and writes it
# to BENCH_RESULTS_DIR/bundling-DATE.md, headed by the command, the checkout and the binary measured.
#
# DEPOT_BIN=path (and no BUNDLER): nothing is built; Depot's side is `$DEPOT_BIN dev stage` of the pack into a
# fresh copy of a data directory whose catalog holds the pack's product (made once by starting `depot serve`),
# the bundle copied out: the same BundleWriter as the store runs it, with its default thread count, and the
# times include copying that directory, starting depot and recording the version. bench/smoke.sh runs it so,
# since building bench/bundler (swift-crypto) costs minutes: the smoke then checks bench/bundler's
# Package.swift against the imports of the sources it compiles (.ci/check-imports.py), but compiles neither
# the bundler's front end (Sources/bundler/main.swift) nor its build; a full run (no DEPOT_BIN) builds both.
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

mkdir -p "$work"
label="Depot bundler, $threads threads"
if [[ -n ${BUNDLER:-} ]]; then
    bundler=$(realpath "$BUNDLER")
    [[ -x $bundler ]] || { echo "BUNDLER=$BUNDLER is not executable" >&2; exit 1; }
elif [[ -n ${DEPOT_BIN:-} ]]; then
    depot=$(realpath "$DEPOT_BIN")
    [[ -x $depot ]] || { echo "DEPOT_BIN=$DEPOT_BIN is not executable" >&2; exit 1; }
    echo "Depot's side: $depot dev stage (DEPOT_BIN; nothing is built)" >&2
    # What can be checked of bench/bundler without building it: its Package.swift declares exactly the
    # modules the sources it compiles import (Depot's sources are symlinked into it, and they change).
    (cd "$here/bundler" && python3 "$here/../.ci/check-imports.py") >&2 ||
        { echo "bench/bundler/Package.swift does not match the imports of its sources" >&2; exit 1; }
    label="Depot, depot dev stage"
    rm -rf "$work/stage-config"
    cp -R "$here/../Config" "$work/stage-config"
    echo '{"products": [{"id": "com.example.bench.pack", "type": "nonConsumable", "title": "Bundling benchmark"}]}' \
        >"$work/stage-config/products.json"
    # A data directory whose catalog holds the product: `depot serve` imports products.json as it starts.
    rm -rf "$work/stage-template"
    mkdir -p "$work/stage-template/content"
    "$depot" serve --config "$work/stage-config" --data-dir "$work/stage-template/data" \
        --content-dir "$work/stage-template/content" --host 127.0.0.1 --port 0 2>"$work/stage-template/serve.log" &
    serve_pid=$!
    trap 'kill "$serve_pid" 2>/dev/null || true' EXIT
    for _ in $(seq 1 600); do
        grep -q listening "$work/stage-template/serve.log" && break
        kill -0 "$serve_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" || true
    trap - EXIT
    grep -q listening "$work/stage-template/serve.log" ||
        { tail -n 20 "$work/stage-template/serve.log" >&2; echo "depot serve did not start" >&2; exit 1; }
    # The bundler's interface (PACK OUT [--threads N] -> "digest size seconds") over `depot dev stage`.
    bundler=$work/stage-bundler
    cat >"$bundler" <<EOF_STAGE
#!/usr/bin/env bash
set -euo pipefail
scratch=\$(mktemp -d "$work/stage.XXXXXX")
trap 'rm -rf "\$scratch"' EXIT
started=\$(date +%s%N)
cp -R "$work/stage-template/data" "\$scratch/data"
line=\$("$depot" dev stage --config "$work/stage-config" --data-dir "\$scratch/data" "\$1" --product com.example.bench.pack | tail -n1)
digest=\${line##* }
cp "\$scratch/data/bundles/\${digest:0:2}/\$digest.zip" "\$2"
echo "\$digest \$(stat -c %s "\$2") \$(( (\$(date +%s%N) - started) / 1000000 )) ms"
EOF_STAGE
    chmod +x "$bundler"
else
    echo "building the release bundler..." >&2
    swift build -c release --package-path "$here/bundler" >&2
    bundler="$(swift build -c release --package-path "$here/bundler" --show-bin-path)/bundler"
fi

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

divide=${DIVIDE:-1}
pack_arguments=(--scale "$scale")
((divide == 1)) || pack_arguments+=(--divide "$divide")
make_pack "$work/pack" "${pack_arguments[@]}"
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
depot_run  # warm-up: both read the pack from the page cache afterwards
zip_run
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
results=${BENCH_RESULTS_DIR:-$here/results}
mkdir -p "$results"
report_file=$results/bundling-$(date +%Y-%m-%d-%H%M%S).md
# The binary whose bundles were timed: bench/bundler's build (BUNDLER) or DEPOT_BIN behind the stage script.
measured=${depot:-$bundler}
commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$here/.." status --porcelain -- Sources bench/bundler 2>/dev/null | head -c1 || true)
{
echo "# bench/bundling.sh, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "RUNS=$runs THREADS=$threads SCALE=$scale DIVIDE=$divide HUGE_MIB=$huge_mib QUIET_WAIT=$quiet_wait${DEPOT_BIN:+ DEPOT_BIN=$DEPOT_BIN}${BUNDLER:+ BUNDLER=$BUNDLER} bash bench/bundling.sh; checkout at $commit${dirty:+ (Sources/ or bench/bundler/ with uncommitted changes)};"
echo "measured \`$measured\`, built $(date -u -r "$measured" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$measured" | cut -c1-12)."
echo
echo "Pack: $files files, $bytes bytes ($(awk "BEGIN {printf \"%.1f\", $bytes / 1048576}") MiB); $runs runs each, alternating."
echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load $load_before before, $load_after after;"
if ((quiet_wait > 0)); then
    echo "$busy_runs of $((2 * runs)) timed runs started without the CPUs 90% idle (QUIET_WAIT=$quiet_wait s)."
else
    echo "QUIET_WAIT=0: runs started without waiting for idle CPUs; compare the CPU column, not the wall times."
fi
zlib=$(dpkg-query -W -f='${Version}' zlib1g 2>/dev/null || echo unknown)
libdeflate=$(dpkg-query -W -f='${Version}' libdeflate0 2>/dev/null || echo unknown)
echo "System libdeflate $libdeflate (Depot) and zlib $zlib; Info-ZIP $(zip -v | sed -n 2p | awk '{print $3, $4}')."
echo
echo "| tool | wall s (median) | wall s (best) | CPU s (user+sys, median) | output bytes | peak RSS MiB |"
echo "|---|---|---|---|---|---|"
summary depot "$work/depot.zip" | sed "s/^| depot /| $label /"
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
} | tee "$report_file"
echo "report: $report_file" >&2
