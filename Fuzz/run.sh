#!/usr/bin/env bash
# libFuzzer campaigns over Depot's parsers, built with the toolchain's -sanitize=fuzzer (and AddressSanitizer).
#
#   bash Fuzz/run.sh [SECONDS] [TARGET]     # default: 60 seconds of every target
#   bash Fuzz/run.sh 3600 jws               # a long campaign of one target
#
# Targets (each harness lists the invariants it checks; the test suite replays its seeds and regressions):
#   http-fields   Range, If-Range, If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since on a
#                 bundle request (Tests/DepotHTTPTests/Fuzzing/HTTPFieldsFuzzHarness.swift)
#   archives      zip, tar and tar.gz reading and extraction under tight ArchiveLimits
#                 (Tests/DepotArchivesTests/Fuzzing/ArchiveFuzzHarness.swift)
#   archive-structures
#                 the same harness over archives built from the input with right checksums and a consistent
#                 zip central directory, every size and offset drawn from the extremes as often as from the
#                 plausible (Tests/DepotArchivesTests/Fuzzing/ArchiveStructureGenerator.swift)
#   tus           Upload-Metadata, Upload-Checksum, Upload-Length, Upload-Defer-Length, Upload-Offset,
#                 Tus-Resumable and Content-Type, and the creation and PATCH rules
#                 (Tests/DepotServerTests/Fuzzing/TusFuzzHarness.swift)
#   grants        grant tokens, finish tokens and sealed transaction fields
#                 (Tests/DepotTrustTests/Fuzzing/GrantFuzzHarness.swift)
#   jws           App Store signed data: compact JWS, x5c chains, verification and payload decoding
#                 (Tests/DepotTrustTests/Fuzzing/JWSFuzzHarness.swift); seeded at run time with the genuine
#                 tokens of ../shared/realworld when that folder exists (DEPOT_FUZZ_REALWORLD overrides)
#   app-receipts  StoreKit 1 app receipts: CMS SignedData (DER and BER), chains at the creation date, the payload's
#                 attributes (Tests/DepotTrustTests/Fuzzing/ReceiptFuzzHarness.swift); seeded at run time with the
#                 genuine receipts of ../shared/realworld/app-receipts and their payloads, never kept here
#   google-play   Google Play purchase data and signatures verified offline
#                 (Tests/DepotTrustTests/Fuzzing/GooglePlayFuzzHarness.swift); seeded at run time with the genuine
#                 Play purchase of ../shared/realworld when that folder exists
#
# Only our own code is instrumented: each target compiles its sources and harness with swiftc into one
# module. The trust targets (grants, jws, google-play, app-receipts) are one binary, built once per run, that
# links swift-crypto, swift-certificates and swift-asn1 as SwiftPM built them for the debug configuration
# (`swift build --target DepotTrust`, a no-op after the test build); building those packages again with the
# sanitizers costs more than ten minutes on two cores.
#
# Each target starts from its seeds (Fuzz/Corpus/TARGET) and what earlier campaigns on this machine found
# (.build/fuzz/corpus-TARGET). An input that breaks an invariant or crashes is copied to
# Fuzz/Regressions/TARGET/ and the run fails: commit the file with the fix; the test suite replays every
# file there (the FuzzRegressionTests suites).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECONDS_PER_TARGET=${1:-60}
ONLY=${2:-}
BUILD=$ROOT/.build/fuzz
# A stopped target prints its message and libFuzzer's trace; Swift's own backtracer is not needed (and is
# slow under AddressSanitizer).
export SWIFT_BACKTRACE=enable=no
# The archives target writes and extracts every input: in memory when the machine has /dev/shm.
if [[ -d /dev/shm && -w /dev/shm ]]; then export TMPDIR=/dev/shm; fi
REALWORLD=${DEPOT_FUZZ_REALWORLD:-$ROOT/../shared/realworld}
if [[ -d $REALWORLD ]]; then export DEPOT_FUZZ_REALWORLD=$REALWORLD; else unset DEPOT_FUZZ_REALWORLD; fi
mkdir -p "$BUILD"
# The trust binary is built afresh by each run (see build_trust).
rm -f "$BUILD/trust"

# swiftc with the fuzzer and AddressSanitizer, every file given in one module named $1, to $BUILD/$2.
compile() {
    local module=$1 target=$2
    shift 2
    swiftc -O -sanitize=fuzzer,address -parse-as-library -package-name depot -module-name "$module" \
        -D DEPOT_FUZZ_SINGLE_MODULE -swift-version 6 "$@" -o "$BUILD/$target" 2>&1 \
        | grep -v "ld.gold: warning: Cannot export local symbol" || true
    [[ -x $BUILD/$target ]]
}

build_http_fields() {
    # DepotHTTP's dates use DepotCore's calendar: that file joins the module (DepotCore, which imports nothing, is
    # built so that `import DepotCore` resolves; the module's own copy is the one used).
    (cd "$ROOT" && swift build --target DepotCore 2>&1 | tail -1)
    local debug
    debug=$(cd "$ROOT" && swift build --show-bin-path)
    compile DepotHTTPFuzz http-fields -I "$debug/Modules" "$ROOT/Sources/DepotCore/Time/CivilDate.swift" \
        "$ROOT"/Sources/DepotHTTP/*.swift "$ROOT"/Sources/DepotHTTP/Internal/*.swift \
        "$ROOT/Tests/DepotHTTPTests/Fuzzing/HTTPFieldsFuzzHarness.swift" "$ROOT/Fuzz/HTTPFieldsEntry.swift"
}

build_archives() {
    local sources
    mapfile -t sources < <(find "$ROOT/Sources/DepotArchives" -name '*.swift' | sort)
    compile DepotArchivesFuzz archives -I "$ROOT/Sources/CZlib" -lz "${sources[@]}" \
        "$ROOT/Tests/DepotArchivesTests/Fuzzing/ArchiveFuzzHarness.swift" "$ROOT/Fuzz/ArchiveHarnessScratch.swift" \
        "$ROOT/Fuzz/ArchivesEntry.swift"
}

build_archive_structures() {
    local sources
    mapfile -t sources < <(find "$ROOT/Sources/DepotArchives" -name '*.swift' | sort)
    compile DepotArchiveStructuresFuzz archive-structures -I "$ROOT/Sources/CZlib" -lz "${sources[@]}" \
        "$ROOT/Tests/DepotArchivesTests/Fuzzing/ArchiveFuzzHarness.swift" \
        "$ROOT/Tests/DepotArchivesTests/Fuzzing/ArchiveStructureGenerator.swift" "$ROOT/Fuzz/ArchiveHarnessScratch.swift" \
        "$ROOT/Fuzz/ArchiveStructuresEntry.swift"
}

# The tus header parsers and rules import nothing but Foundation and DepotCore's version rule: the error table, the
# server's answer to an upload's refusal and these files build without Hummingbird, NIO or the ledger. DepotCore is
# built so that `import DepotCore` resolves; the module's own copy of the rule is the one used.
build_tus() {
    local server=$ROOT/Sources/DepotServer uploads=$ROOT/Sources/DepotServices/Uploads
    (cd "$ROOT" && swift build --target DepotCore 2>&1 | tail -1)
    local debug
    debug=$(cd "$ROOT" && swift build --show-bin-path)
    compile DepotTusFuzz tus -I "$debug/Modules" "$ROOT/Sources/DepotCore/Identifiers/VersionName.swift" \
        "$ROOT/Sources/DepotAPI/Errors/DepotError.swift" "$ROOT/Sources/DepotAPI/Errors/ErrorCode.swift" \
        "$server/Uploads/DepotError+Uploads.swift" "$uploads/UploadError.swift" "$uploads/TusProtocol.swift" \
        "$uploads/UploadMetadata.swift" "$uploads/UploadChecksum.swift" \
        "$uploads/UploadRules.swift" "$ROOT/Tests/DepotServerTests/Fuzzing/TusFuzzHarness.swift" \
        "$ROOT/Fuzz/TusEntry.swift"
}

# DepotTrust's sources, instrumented, over the debug build of the packages it imports (not instrumented), with
# every trust harness in one binary (Fuzz/TrustEntry.swift): compiling DepotTrust with the sanitizers takes about
# 100 s on two cores, so it is done once per run and each trust target is that binary with
# DEPOT_FUZZ_TRUST_TARGET naming it.
build_trust() {
    local target=$1
    if [[ ! -x $BUILD/trust ]]; then
        (cd "$ROOT" && swift build --target DepotTrust 2>&1 | tail -1)
        local debug
        debug=$(cd "$ROOT" && swift build --show-bin-path)
        local dependency objects=() sources
        for dependency in DepotSystem SwiftASN1 X509 _CertificateInternals Crypto CryptoExtras _CryptoExtras \
            CryptoBoringWrapper CCryptoBoringSSL CCryptoBoringSSLShims CXKCP CXKCPShims; do
            [[ -d $debug/$dependency.build ]] || { echo "no $debug/$dependency.build: the package layout changed"; return 1; }
            mapfile -t -O "${#objects[@]}" objects < <(find "$debug/$dependency.build" -name '*.o' | sort)
        done
        # DepotTrust's transaction ids follow DepotCore's identifier rule, and its App Store verifier hands over
        # DepotCore's verified purchases: DepotCore (which imports nothing) joins the module.
        mapfile -t sources < <(find "$ROOT/Sources/DepotTrust" "$ROOT/Sources/DepotCore" -name '*.swift' | sort)
        local fuzzing=$ROOT/Tests/DepotTrustTests/Fuzzing
        compile DepotTrustFuzz trust -I "$debug/Modules" "${sources[@]}" "$fuzzing/GrantFuzzHarness.swift" \
            "$fuzzing/JWSFuzzHarness.swift" "$fuzzing/GooglePlayFuzzHarness.swift" "$fuzzing/ReceiptFuzzHarness.swift" \
            "$ROOT/Fuzz/GrantsEntry.swift" "$ROOT/Fuzz/JWSEntry.swift" "$ROOT/Fuzz/GooglePlayEntry.swift" \
            "$ROOT/Fuzz/ReceiptsEntry.swift" "$ROOT/Fuzz/TrustEntry.swift" "${objects[@]}" || return 1
    fi
    ln -sf "$BUILD/trust" "$BUILD/$target"
}

build_grants() { build_trust grants; }
build_google_play() { build_trust google-play; }
build_app_receipts() { build_trust app-receipts; }
build_jws() { build_trust jws; }

# Seeds made at run time, never kept in the repository: the genuine App Store tokens, and Apple's
# certificates standing in a development chain (harness mode 2).
seeds_jws() {
    local seeds=$1
    [[ -n ${DEPOT_FUZZ_REALWORLD:-} ]] || return 0
    cp "$DEPOT_FUZZ_REALWORLD"/apple-signed/*.jws "$seeds/" 2>/dev/null || true
    local position certificate size
    for position in 0 1 2; do
        for certificate in "$DEPOT_FUZZ_REALWORLD"/certs/*.cer; do
            [[ -f $certificate ]] || continue
            size=$(stat -c %s "$certificate")
            { printf "\\x02\\x$(printf %02x "$position")\\x$(printf %02x $((size >> 8)))\\x$(printf %02x $((size & 255)))"
                cat "$certificate"; } >"$seeds/x5c-$position-$(basename "$certificate")"
        done
    done
}

# The genuine Play purchase as the harness's third mode reads it: the data, a zero byte, the signature.
seeds_google_play() {
    local seeds=$1 folder=${DEPOT_FUZZ_REALWORLD:-}/google-play
    [[ -n ${DEPOT_FUZZ_REALWORLD:-} && -f $folder/01-subscription-sandbox.purchase.json ]] || return 0
    { cat "$folder/01-subscription-sandbox.purchase.json"; printf '\x00'; cat "$folder/01-subscription-sandbox.signature"; } \
        >"$seeds/genuine-purchase"
}

# The genuine receipts as they are (mode "anything else"), their payloads to be signed by the harness (mode 1),
# read from the shared folder, never committed (the edits of mode 2 are in Fuzz/Corpus/app-receipts).
seeds_app_receipts() {
    local seeds=$1 folder=${DEPOT_FUZZ_REALWORLD:-}/app-receipts receipt name
    [[ -n ${DEPOT_FUZZ_REALWORLD:-} && -d $folder ]] || return 0
    for receipt in "$folder"/*.der; do
        name=$(basename "$receipt" .der)
        cp "$receipt" "$seeds/$name"
        { printf '\x01'; openssl cms -verify -noverify -inform DER -in "$receipt" -out /dev/stdout 2>/dev/null; } \
            >"$seeds/payload-$name" || rm -f "$seeds/payload-$name"
    done
}

# Per target: the longest input, and libFuzzer options of its own.
options_for() {
    case $1 in
        archives) echo "-max_len=16384" ;;
        archive-structures) echo "-max_len=256" ;;
        # Genuine notifications carry two nested tokens (up to 19 KB). Verification runs on Swift
        # concurrency, whose allocations outlive an input: leak checks after each input would report them
        # and cost most of the time.
        jws) echo "-max_len=20480 -detect_leaks=0" ;;
        # The 187-record receipt is 79 KB; verification runs on Swift concurrency, as for jws.
        app-receipts) echo "-max_len=81920 -detect_leaks=0" ;;
        *) echo "-max_len=4096" ;;
    esac
}

run_target() {
    local target=$1 corpus="$BUILD/corpus-$1" found="$BUILD/found-$1" seeds="$BUILD/seeds-$1"
    mkdir -p "$corpus" "$found" "$ROOT/Fuzz/Regressions/$target"
    rm -rf "$seeds" && mkdir -p "$seeds"
    if declare -F "seeds_${target//-/_}" >/dev/null; then "seeds_${target//-/_}" "$seeds"; fi
    echo "== $target: building"
    rm -f "$BUILD/$target"
    local started=$SECONDS
    "build_${target//-/_}" || { echo "== $target: the build failed"; return 1; }
    echo "== $target: built in $((SECONDS - started)) s; fuzzing for $SECONDS_PER_TARGET s"
    local status=0 log="$BUILD/log-$target"
    # shellcheck disable=SC2046
    # Targets whose per-input leak checks are off (see options_for) skip the check at exit too: what they hold at exit
    # is the harness's own start-up state (keys, certificates), not a parser's leak.
    local leaks=1
    [[ $(options_for "$target") == *-detect_leaks=0* ]] && leaks=0
    (cd "$found" && DEPOT_FUZZ_TRUST_TARGET=$target ASAN_OPTIONS="detect_leaks=$leaks" LSAN_OPTIONS="detect_leaks=$leaks" "$BUILD/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
        $(options_for "$target") -print_final_stats=1 "$corpus" "$ROOT/Fuzz/Corpus/$target" "$seeds") >"$log" 2>&1 \
        || status=$?
    grep -vE '^(#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD|INITED)|"|[[:space:]]+NEW_FUNC)' "$log" | tail -n 40
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

targets=(http-fields archives archive-structures tus grants jws google-play app-receipts)
failed=0
for target in "${targets[@]}"; do
    [[ -z $ONLY || $ONLY == "$target" ]] || continue
    run_target "$target" || failed=1
done
echo "== every target built and fuzzed in $SECONDS s"
exit "$failed"
