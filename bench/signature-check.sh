#!/usr/bin/env bash
# The ES256 signature check on its own: swift-crypto's P-256 verify as Depot's JWS verifier runs it, stage by stage,
# beside `openssl speed ecdsap256` in the same run, and each one's instructions per check (callgrind).
#
#   bash bench/signature-check.sh
#   SC_SECONDS=1 SC_ROUNDS=1 SC_CALLGRIND=0 DEPOT_BIN=.build/debug/depot bash bench/signature-check.sh
#
# Rates: `depot dev signature-speed --seconds S` and `openssl speed -seconds S ecdsap256`, alternating, SC_ROUNDS
# rounds; both count checks per second of the process's CPU time (openssl speed's own measure), so a loaded
# machine slows the wall clock more than the figures. The stages of `depot dev signature-speed`, each adding
# work to the one before:
#   verify  P-256 verify of a digest computed once, parsed key and signature (what openssl speed times)
#   hash    + SHA-256 of the JWS signing input
#   depot   + the signature read from raw r||s: Depot's check with the key kept beside a verified chain
#   key     + the leaf's P-256 key built from its certificate per check
#   token   the whole verification of the token with its chain kept (JWS split and decoded, header and payload
#           read, signature, transaction fields)
# Instructions (SC_CALLGRIND=1, the default): each stage runs under `valgrind --tool=callgrind` twice, with
# SC_CG_FEW and SC_CG_MANY checks; the difference of the totals over the difference of the counts is the figure
# per check (the start-up cancels out). OpenSSL's verify is counted the same way by a small C program linked to
# libcrypto that verifies the same key, digest and signature (`depot dev signature-speed --print-fixture`) with
# EVP_PKEY_verify, as openssl speed does.
#
# Environment: SC_SECONDS=3, SC_ROUNDS=3, SC_CALLGRIND=1, SC_CG_FEW=20, SC_CG_MANY=220; DEPOT_BIN=path (that
# binary, nothing built) or the release build (BENCH_SKIP_BUILD=1: as it is); BENCH_RESULTS_DIR (default
# bench/results) receives the report, signature-check-STAMP.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
SECONDS_EACH=${SC_SECONDS:-3}
ROUNDS=${SC_ROUNDS:-3}
CALLGRIND=${SC_CALLGRIND:-1}
FEW=${SC_CG_FEW:-20}
MANY=${SC_CG_MANY:-220}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
STAGES=(verify hash depot key token)
[[ $SECONDS_EACH =~ ^[0-9]+$ && $ROUNDS =~ ^[1-9][0-9]*$ && $FEW =~ ^[1-9][0-9]*$ && $MANY =~ ^[1-9][0-9]*$ ]] ||
    die "SC_SECONDS, SC_ROUNDS, SC_CG_FEW and SC_CG_MANY must be whole numbers (SC_SECONDS at least 1)"
((SECONDS_EACH >= 1 && MANY > FEW)) || die "SC_SECONDS must be at least 1 and SC_CG_MANY above SC_CG_FEW"

for tool in openssl python3; do command -v "$tool" >/dev/null || die "$tool is not installed"; done
if [[ $CALLGRIND == 1 ]]; then
    for tool in valgrind objcopy cc; do command -v "$tool" >/dev/null || die "$tool is not installed (or SC_CALLGRIND=0)"; done
fi

build_depot_release "$ROOT"
start_scratch depot-signature-check
trap 'rm -rf "$TMP"' EXIT

# Rates, alternating openssl and depot.
: >"$TMP/rates.txt"
for ((round = 1; round <= ROUNDS; round++)); do
    log "round $round of $ROUNDS: openssl speed -seconds $SECONDS_EACH ecdsap256"
    # -mr prints `+R6:COUNT:256:CPU_SECONDS` for the verifications (on standard error).
    openssl speed -mr -seconds "$SECONDS_EACH" ecdsap256 2>&1 |
        awk -F: -v round="$round" '/^\+R6:/ { printf "%s openssl %s %s\n", round, $2, $4 }' >>"$TMP/rates.txt"
    log "round $round of $ROUNDS: depot dev signature-speed --seconds $SECONDS_EACH"
    "$DEPOT" dev signature-speed --seconds "$SECONDS_EACH" >"$TMP/depot-$round.txt" || die "depot dev signature-speed failed"
    python3 - "$round" "$TMP/depot-$round.txt" >>"$TMP/rates.txt" <<'EOF'
import sys
for line in open(sys.argv[2]):
    fields = dict(part.split("=", 1) for part in line.split())
    if int(fields["held"]) != int(fields["checks"]):
        sys.exit(f"stage {fields['stage']}: {fields['held']} of {fields['checks']} checks held")
    print(sys.argv[1], fields["stage"], fields["checks"], fields["cpu_seconds"])
EOF
done
grep -q ' openssl ' "$TMP/rates.txt" || die "openssl speed printed no verification count"

# Instructions per check.
: >"$TMP/instructions.txt"
if [[ $CALLGRIND == 1 ]]; then
    callgrind_ready_copy "$DEPOT" "$TMP/depot"
    total_ir() { awk '/^summary:/ { print $2 } /^totals:/ { print $2 }' "$1" | head -1; }
    for stage in "${STAGES[@]}"; do
        for checks in "$FEW" "$MANY"; do
            log "callgrind: $stage, $checks checks"
            LD_PRELOAD="$CALLGRIND_SHIM" valgrind --tool=callgrind --callgrind-out-file="$TMP/cg-$stage-$checks.out" \
                "$TMP/depot" dev signature-speed --checks "$checks" --stage "$stage" >/dev/null 2>"$TMP/cg-$stage-$checks.log" ||
                die "depot under callgrind failed: $(tail -n 5 "$TMP/cg-$stage-$checks.log")"
        done
        few=$(total_ir "$TMP/cg-$stage-$FEW.out")
        many=$(total_ir "$TMP/cg-$stage-$MANY.out")
        echo "$stage $(((many - few) / (MANY - FEW)))" >>"$TMP/instructions.txt"
    done
    "$DEPOT" dev signature-speed --print-fixture >"$TMP/fixture.txt"
    cat >"$TMP/openssl-verify.c" <<'EOF_C'
/* Verifies one P-256 ECDSA signature of a digest N times with OpenSSL's EVP_PKEY_verify, as openssl speed does. */
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t unhex(const char *text, unsigned char *out, size_t room) {
    size_t length = strlen(text) / 2;
    if (length > room) exit(2);
    for (size_t i = 0; i < length; i++) sscanf(text + 2 * i, "%2hhx", &out[i]);
    return length;
}

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    unsigned char key[256], digest[64], signature[128];
    size_t key_length = unhex(argv[1], key, sizeof key);
    size_t digest_length = unhex(argv[2], digest, sizeof digest);
    size_t signature_length = unhex(argv[3], signature, sizeof signature);
    long count = atol(argv[4]), held = 0;
    const unsigned char *cursor = key;
    EVP_PKEY *pkey = d2i_PUBKEY(NULL, &cursor, (long)key_length);
    if (pkey == NULL) return 3;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new(pkey, NULL);
    if (context == NULL || EVP_PKEY_verify_init(context) != 1) return 4;
    for (long i = 0; i < count; i++)
        held += EVP_PKEY_verify(context, signature, signature_length, digest, digest_length) == 1;
    printf("%ld of %ld held\n", held, count);
    return held == count ? 0 : 1;
}
EOF_C
    cc -O2 -o "$TMP/openssl-verify" "$TMP/openssl-verify.c" -lcrypto || die "cannot build the OpenSSL verifier"
    fixture_value() { sed -n "s/^$1=//p" "$TMP/fixture.txt"; }
    for checks in "$FEW" "$MANY"; do
        log "callgrind: OpenSSL EVP_PKEY_verify, $checks checks"
        valgrind --tool=callgrind --callgrind-out-file="$TMP/cg-openssl-$checks.out" "$TMP/openssl-verify" \
            "$(fixture_value key)" "$(fixture_value digest)" "$(fixture_value signature)" "$checks" >/dev/null \
            2>"$TMP/cg-openssl-$checks.log" || die "the OpenSSL verifier failed: $(tail -n 5 "$TMP/cg-openssl-$checks.log")"
    done
    few=$(total_ir "$TMP/cg-openssl-$FEW.out")
    many=$(total_ir "$TMP/cg-openssl-$MANY.out")
    echo "openssl $(((many - few) / (MANY - FEW)))" >>"$TMP/instructions.txt"
fi

stamp=$(date -u +%Y-%m-%d-%H%M%S)
mkdir -p "$RESULTS_DIR"
report="$RESULTS_DIR/signature-check-$stamp.md"
{
    echo "# ES256 signature check, $stamp UTC"
    echo
    echo "$(depot_provenance "$DEPOT" "$ROOT"); $(openssl version);"
    echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $ROUNDS rounds of $SECONDS_EACH s per"
    echo "stage, openssl and depot alternating. Rates are checks per second of the process's CPU time (median of the"
    echo "rounds); instructions are user space per check (callgrind, $MANY checks less $FEW)."
    echo
    python3 - "$TMP/rates.txt" "$TMP/instructions.txt" <<'EOF'
import statistics, sys
rates = {}
for line in open(sys.argv[1]):
    _, name, count, seconds = line.split()
    rates.setdefault(name, []).append(int(count) / max(float(seconds), 1e-9))
instructions = dict(line.split() for line in open(sys.argv[2]))
what = {
    "openssl": "`openssl speed ecdsap256` (EVP_PKEY_verify of a digest)",
    "verify": "swift-crypto P-256 verify of a digest, parsed key and signature",
    "hash": "+ SHA-256 of the signing input",
    "depot": "+ signature read from raw (r, s): Depot's check, key kept with the chain",
    "key": "+ the leaf's key built from its certificate per check",
    "token": "whole token verification, chain kept (`verifyTransaction`)",
}
base = statistics.median(rates["openssl"])
base_ir = int(instructions["openssl"]) if "openssl" in instructions else None
print("| check | checks/s (median) | each round | time / OpenSSL's | instructions / check | instructions / OpenSSL's |")
print("|---|---:|---|---:|---:|---:|")
for name in ["openssl", "verify", "hash", "depot", "key", "token"]:
    if name not in rates:
        continue
    median = statistics.median(rates[name])
    rounds = ", ".join(f"{rate:,.0f}" for rate in rates[name])
    ir = int(instructions[name]) if name in instructions else None
    ir_text = f"{ir:,}" if ir else ""
    ir_ratio = f"{ir / base_ir:.2f}x" if ir and base_ir else ""
    print(f"| {what[name]} | {median:,.0f} | {rounds} | {base / median:.2f}x | {ir_text} | {ir_ratio} |")
EOF
} >"$report"
cat "$report"
log "report: $report"
