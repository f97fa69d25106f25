#!/usr/bin/env bash
# libFuzzer campaigns over Depot's parsers, built with the toolchain's -sanitize=fuzzer (and AddressSanitizer).
#
#   bash Fuzz/run.sh [SECONDS] [TARGET]     # default: 60 seconds of every target
#   bash Fuzz/run.sh 3600 http-fields       # a long campaign of one target
#
# Targets:
#   http-fields   Range, If-Range, If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since on a
#                 bundle request: the planned answer keeps its status and body rules, and every field parser
#                 takes any value (Tests/DepotHTTPTests/Fuzzing/HTTPFieldsFuzzHarness.swift)
#
# Each target starts from its seeds (Fuzz/Corpus/TARGET) and what earlier campaigns on this machine found
# (.build/fuzz/corpus-TARGET). An input that breaks an invariant or crashes is copied to
# Fuzz/Regressions/TARGET/ and the run fails: commit the file with the fix; the test suite replays every
# file there (FuzzRegressionTests).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_PER_TARGET=${1:-60}
ONLY=${2:-}
BUILD=$ROOT/.build/fuzz
# A stopped target prints its message and libFuzzer's trace; Swift's own backtracer is not needed (and is
# slow under AddressSanitizer).
export SWIFT_BACKTRACE=enable=no
mkdir -p "$BUILD"

build_http_fields() {
    local sources=("$ROOT"/Sources/DepotHTTP/*.swift "$ROOT"/Sources/DepotHTTP/Internal/*.swift
        "$ROOT/Tests/DepotHTTPTests/Fuzzing/HTTPFieldsFuzzHarness.swift" "$ROOT/Fuzz/HTTPFieldsEntry.swift")
    swiftc -O -sanitize=fuzzer,address -parse-as-library -package-name depot -module-name DepotHTTPFuzz \
        -D DEPOT_FUZZ_SINGLE_MODULE -swift-version 6 "${sources[@]}" -o "$BUILD/http-fields" 2>&1 \
        | grep -v "ld.gold: warning: Cannot export local symbol" || true
    [[ -x $BUILD/http-fields ]]
}

run_target() {
    local target=$1 corpus="$BUILD/corpus-$1" found="$BUILD/found-$1"
    mkdir -p "$corpus" "$found" "$ROOT/Fuzz/Regressions/$target"
    echo "== $target: building"
    rm -f "$BUILD/$target"
    "build_${target//-/_}" || { echo "== $target: the build failed"; return 1; }
    echo "== $target: fuzzing for $SECONDS_PER_TARGET s"
    local status=0
    (cd "$found" && "$BUILD/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -print_final_stats=1 "$corpus" "$ROOT/Fuzz/Corpus/$target") || status=$?
    local crash
    for crash in "$found"/crash-* "$found"/leak-* "$found"/timeout-* "$found"/oom-*; do
        [[ -e $crash ]] || continue
        cp "$crash" "$ROOT/Fuzz/Regressions/$target/"
        echo "== $target: kept $(basename "$crash") in Fuzz/Regressions/$target/"
        rm -f "$crash"
        status=1
    done
    if ((status != 0)); then echo "== $target: FAILED"; else echo "== $target: no finding"; fi
    return "$status"
}

targets=(http-fields)
failed=0
for target in "${targets[@]}"; do
    [[ -z $ONLY || $ONLY == "$target" ]] || continue
    run_target "$target" || failed=1
done
exit "$failed"
