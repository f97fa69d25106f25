#!/usr/bin/env bash
# From the last byte of an upload to `staged`, for a 100 MiB mixed pack, against `zip -r -6` of the same folder,
# same machine, same run.
#
#   bash bench/publish-staging.sh
#
# The pack (made once, deterministic): 40 MiB of random bytes (incompressible) in 4 files, 40 MiB of
# text-like JSON (compressible) in 8 files, and 2,000 small files of 10 KiB of mixed content.
# Per round (BENCH_ROUNDS), the pack gets version 1.<round> and is tarred (`tar -cf`); then
#   - Depot: the tar is uploaded with tus (POST + one PATCH with curl); the clock starts when the PATCH is
#     answered (the last byte is durable), `POST /v1/publisher/products/{id}/versions` asks for the version,
#     and the versions list is polled every 20 ms until the job left it (staged). That time covers the
#     SHA-256 of the upload, the safe unpacking, bundling (deflate on every core, at most 8 threads) and the
#     ledger records.
#   - zip: `zip -r -6 -q` of the same folder (one thread), timed alone.
# The order alternates by round.
#
# Environment: BENCH_ROUNDS=3, BENCH_SKIP_BUILD=1 (use the binary as is), BENCH_DEPOT=PATH (another binary, with
# BENCH_SKIP_BUILD=1), DEPOT_BIN=PATH (that binary, any build; nothing is built), BENCH_RESULTS_DIR,
# BENCH_PACK_DIVISOR=1 (every file size and the count of small files divided by it: bench/smoke.sh uses 100).
set -euo pipefail
shopt -s inherit_errexit # a failing step inside $(depot_round ...) stops the run too

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
RESULTS_DIR=${BENCH_RESULTS_DIR:-$ROOT/bench/results}
DEPOT=${BENCH_DEPOT:-$ROOT/.build/release/depot}
PRODUCT=com.example.bench.mission
DIVISOR=${BENCH_PACK_DIVISOR:-1}

# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
for tool in curl zip tar python3 ss sha256sum; do command -v "$tool" >/dev/null || die "$tool is not installed"; done

TMP=$(mktemp -d /tmp/depot-publish-bench.XXXXXX)
DEPOT_PID=
cleanup() {
    [[ -n "$DEPOT_PID" ]] && kill "$DEPOT_PID" 2>/dev/null && wait "$DEPOT_PID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

build_depot_release "$ROOT"
now() { date +%s.%N; }

# The mixed pack.
PACK=$TMP/mission
python3 - "$PACK" "$DIVISOR" <<'PY'
import os, random, sys
root, divisor = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261123)
def write(path, data):
    full = os.path.join(root, "Contents", path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f: f.write(data)
for i in range(4):
    write(f"media/noise-{i}.bin", rng.randbytes((10 << 20) // divisor))
words = [w.encode() for w in "tile wall door key lantern cave water stone bridge torch monster treasure map level".split()]
for i in range(8):
    parts, size = [], 0
    while size < (5 << 20) // divisor:
        line = b'{"x": %d, "y": %d, "kind": "%s", "next": "%s"},\n' % (rng.randrange(1000), rng.randrange(1000), rng.choice(words), rng.choice(words))
        parts.append(line); size += len(line)
    write(f"maps/region-{i}.json", b"".join(parts)[: (5 << 20) // divisor])
for i in range(max(1, 2000 // divisor)):
    half = rng.randbytes((5 << 10) // divisor)
    text = (b"sprite %d " % i) * 700
    write(f"sprites/{i // 100:02d}/s{i:04d}.dat", half + text[: (5 << 10) // divisor])
PY
SIZE=$(du -sb "$PACK/Contents" | cut -f1)
log "pack: $SIZE bytes in $(find "$PACK/Contents" -type f | wc -l) files"

PORT=$(pick_port 18580)
"$DEPOT" serve --config "$ROOT/Config" --content-dir "$ROOT/content" --data-dir "$TMP/data" --host 127.0.0.1 \
    --port "$PORT" >"$TMP/depot.out" 2>"$TMP/depot.log" &
DEPOT_PID=$!
for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    kill -0 "$DEPOT_PID" 2>/dev/null || die "depot stopped: $(tail -5 "$TMP/depot.log")"
    sleep 0.1
done
KEY=$("$DEPOT" keys create --publisher bench --config "$ROOT/Config" --data-dir "$TMP/data" | tail -1)
BASE=http://127.0.0.1:$PORT
AUTH=(-H "Authorization: Bearer $KEY")
curl -fsS -o /dev/null -X PUT "${AUTH[@]}" -H 'Content-Type: application/json' \
    -d '{"type": "nonConsumable", "title": "Bench mission"}' "$BASE/v1/publisher/products/$PRODUCT"

depot_round() { # version -> seconds from the PATCH's answer to staged
    local version=$1 tarball=$TMP/mission-$1.tar
    printf '{"productId": "%s", "version": "%s", "publishedAt": "2026-03-01T09:00:00Z"}' "$PRODUCT" "$version" >"$PACK/pack.json"
    (cd "$TMP" && tar -cf "$tarball" mission)
    local size digest location url id start job end
    size=$(stat -c %s "$tarball")
    digest=$(sha256sum "$tarball" | cut -d' ' -f1)
    location=$(curl -fsS -o /dev/null -D - -X POST "${AUTH[@]}" -H "Tus-Resumable: 1.0.0" -H "Upload-Length: $size" \
        "$BASE/v1/publisher/uploads" | tr -d '\r' | awk 'tolower($1) == "location:" {print $2}')
    [[ -n $location ]] || die "depot did not create an upload"
    url=$(location_url "$BASE" "$location")
    curl -fsS -o /dev/null -X PATCH "${AUTH[@]}" -H "Tus-Resumable: 1.0.0" -H "Upload-Offset: 0" -H "Expect:" \
        -H "Content-Type: application/offset+octet-stream" -T "$tarball" "$url"
    start=$(now)
    id=${location##*/}
    job=$(curl -fsS -X POST "${AUTH[@]}" -H 'Content-Type: application/json' \
        -d "{\"upload\": \"$id\", \"version\": \"$version\", \"sha256\": \"$digest\"}" \
        "$BASE/v1/publisher/products/$PRODUCT/versions" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"]["job"])')
    while true; do
        local list
        list=$(curl -fsS "${AUTH[@]}" "$BASE/v1/publisher/products/$PRODUCT/versions")
        if ! grep -q "\"$job\"" <<<"$list"; then break; fi
        if python3 -c 'import json,sys; j=sys.argv[1]; v=[x for x in json.loads(sys.argv[2])["versions"] if x.get("job")==j]; sys.exit(0 if v and v[0]["state"]=="failed" else 1)' "$job" "$list"; then
            die "version $version failed: $list"
        fi
        sleep 0.02
    done
    end=$(now)
    python3 -c 'import json,sys; v=[x for x in json.loads(sys.argv[2])["versions"] if x["version"]==sys.argv[1]]; sys.exit(0 if v and v[0]["state"]=="staged" else 1)' \
        "$version" "$list" || die "version $version is not staged: $list"
    rm -f "$tarball"
    echo "$end - $start" | bc
}
zip_round() {
    rm -f "$TMP/out.zip"
    local start end
    start=$(now)
    (cd "$TMP" && zip -r -6 -q out.zip mission)
    end=$(now)
    echo "$(echo "$end - $start" | bc) $(stat -c %s "$TMP/out.zip")"
}

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/publish-staging-$(date +%Y%m%d-%H%M%S).md
{
    echo "| round | Depot: last byte -> staged (s) | zip -r -6 (s) | zip size (bytes) |"
    echo "|---|---|---|---|"
} >"$REPORT"
for round in $(seq 1 "$ROUNDS"); do
    if ((round % 2)); then
        d=$(depot_round "1.$round"); z=$(zip_round)
    else
        z=$(zip_round); d=$(depot_round "1.$round")
    fi
    log "round $round: depot ${d}s, zip ${z%% *}s"
    echo "| $round | $d | ${z%% *} | ${z##* } |" >>"$REPORT"
done
echo "pack: $SIZE bytes; bundles: $(du -sb "$TMP/data/bundles" | cut -f1) bytes for $ROUNDS versions" >>"$REPORT"
cat "$REPORT"
