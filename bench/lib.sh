# Shared by the benchmark scripts (sourced): messages, free ports, stopping the servers a run started.

# A timestamped message on standard error.
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# Stops the run with a message.
die() {
    log "FAIL: $*"
    exit 1
}

# Whether no TCP socket on this machine uses port $1 (listening, or one end of a connection).
port_is_free() { ! ss -Hatn "sport = :$1" | grep -q .; }

# The first free port from $1 on, other than those in USED_PORTS. A pick made as `$(pick_port N)` runs in a
# subshell: the caller adds the port to USED_PORTS (or starts the next pick above it) before its server listens.
USED_PORTS=()
pick_port() {
    local port=$1
    while ! port_is_free "$port" || [[ " ${USED_PORTS[*]:-} " == *" $port "* ]]; do port=$((port + 1)); done
    echo "$port"
}

# A random port to start picking from, below the kernel's range of ephemeral ports: a port picked there could be
# taken by any outgoing connection on the machine between the pick and the server's bind.
random_base_port() {
    local low=32768
    read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    local top=$((low - 1000))
    ((top > 11000)) || top=11000
    echo $((10000 + RANDOM % (top - 10000)))
}

# SIGTERM to each process given, then up to 5 s for each to go, then SIGKILL.
stop_processes() {
    local pid waited
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        waited=0
        while kill -0 "$pid" 2>/dev/null && ((waited < 50)); do
            sleep 0.1
            waited=$((waited + 1))
        done
        kill -KILL "$pid" 2>/dev/null || true
    done
}

# The depot binary a benchmark runs, into DEPOT.
# - DEPOT_BIN=path: that binary, whatever its build (bench/smoke.sh runs the debug one); nothing is built.
# - Otherwise the release depot of the package at $1 is built, unless BENCH_SKIP_BUILD=1 (then the binary must
#   exist), and DEPOT keeps the binary the script chose (its own knob), or becomes that release build.
build_depot_release() {
    local root=$1
    if [[ -n ${DEPOT_BIN:-} ]]; then
        DEPOT=$(realpath "$DEPOT_BIN" 2>/dev/null) || die "DEPOT_BIN=$DEPOT_BIN does not exist"
        [[ -f $DEPOT && -x $DEPOT ]] || die "DEPOT_BIN=$DEPOT_BIN is not an executable file"
        log "depot: $DEPOT (DEPOT_BIN; nothing is built)"
        return 0
    fi
    DEPOT=${DEPOT:-$root/.build/release/depot}
    if [[ ${BENCH_SKIP_BUILD:-0} == 1 ]]; then
        [[ -x $DEPOT ]] || die "BENCH_SKIP_BUILD=1 but $DEPOT does not exist"
    else
        log "building depot (release)"
        (cd "$root" && swift build -c release --product depot) >&2 || die "release build failed"
    fi
}

# A depot binary on one line: its path, build time and the start of its SHA-256, which tells two builds apart.
binary_identity() {
    local built hash
    built=$(date -u -r "$1" '+%Y-%m-%d %H:%M UTC' 2>/dev/null || echo "unknown time")
    hash=$(sha256sum "$1" 2>/dev/null | cut -c1-12)
    printf 'depot `%s`, built %s, sha256 %s' "$1" "$built" "${hash:-unknown}"
}

# What a report says of the depot it measured, on one line: the checkout's commit (and whether its Sources/ has
# uncommitted changes), then the binary (`binary_identity`). A binary given with DEPOT_BIN may be a build of other
# code than the checkout's commit, and the line says that it was given.
depot_provenance() {
    local commit dirty
    commit=$(git -C "$2" rev-parse --short HEAD 2>/dev/null || echo unknown)
    dirty=$(git -C "$2" status --porcelain -- Sources 2>/dev/null | head -c1 || true)
    printf 'checkout at %s%s; %s%s' "$commit" "${dirty:+ (Sources/ with uncommitted changes)}" "$(binary_identity "$1")" \
        "${DEPOT_BIN:+ (given as DEPOT_BIN)}"
}

# The URL a `Location` header $2 names, relative to origin $1 (http://host:port) unless it is absolute already
# (Depot answers a tus creation with an absolute one; older builds with a path).
location_url() {
    case $2 in
        http://* | https://*) echo "$2" ;;
        *) echo "$1$2" ;;
    esac
}

# Stops the script (SIGTERM) once $1 seconds have passed. The watchdog is recorded in PIDS; ended by
# stop_processes, it ends its own sleep too, so nothing is left behind to fire (or to hold the script's output
# open) later.
start_watchdog() {
    local limit=$1 script=$$
    (
        sleeper=""
        trap '[[ -n $sleeper ]] && kill "$sleeper" 2>/dev/null; exit 0' TERM
        sleep "$limit" &
        sleeper=$!
        wait "$sleeper" || exit 0
        echo "[watchdog] time limit of ${limit}s reached, stopping" >&2
        kill -TERM "$script"
    ) &
    PIDS+=($!)
}

# nginx's `user` line for a generated configuration: as root, workers run as root so that they can read the
# scripts' 0700 temporary trees; otherwise nothing.
nginx_user_line() {
    if [[ $EUID -eq 0 ]]; then echo "user root root;"; fi
}

# nginx's temporary paths (http context), all under directory $1, so that a generated configuration writes
# nowhere else.
nginx_temp_paths() {
    local dir=$1 kind
    for kind in client_body proxy fastcgi uwsgi scgi; do
        local name=$kind
        [[ $kind == client_body ]] && name=body
        printf '    %s_temp_path %s/%s;\n' "$kind" "$dir" "$name"
    done
}

# nginx's http-context settings for serving bundle files as the benchmarks compare it with Depot: sendfile with
# tcp_nopush, long keep-alive, and open_file_cache (Depot keeps bundle descriptors open across requests; nginx gets
# the same advantage).
nginx_bundle_settings() {
    cat <<'EOF_NGINX'
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000;
    keepalive_timeout 65s;
    open_file_cache max=64 inactive=600s;
    open_file_cache_valid 600s;
    server_tokens off;
    types { }
    default_type application/zip;
EOF_NGINX
}

# The digest of content $2's bundle, from the `bundle` line depot serve wrote to its log $1.
logged_digest() { grep " bundle" "$1" | grep "content=$2 " | grep -o 'digest=[0-9a-f]\{64\}' | head -n1 | cut -d= -f2; }

# A grant for bundle $1, valid two hours, made by `$DEPOT dev grant` over $TMP/config and $TMP/data.
dev_grant() { "$DEPOT" dev grant --config "$TMP/config" --data-dir "$TMP/data" --digest "$1" --ttl 7200 2>/dev/null | tail -n1; }

# $1 bytes of AES-128-CTR keystream under key $2 (hex) into file $3: deterministic, incompressible.
keystream() { head -c "$1" /dev/zero | openssl enc -aes-128-ctr -nosalt -K "$2" -iv 00000000000000000000000000000000 >"$3"; }

# A content pack in directory $1 for product $2 holding $3 bytes of keystream under key $4 (hex).
make_pack() {
    mkdir -p "$1/Contents"
    printf '{"productId": "%s", "version": "1.0", "publishedAt": "2026-03-01T09:00:00Z"}\n' "$2" >"$1/pack.json"
    keystream "$3" "$4" "$1/Contents/payload.bin"
}

# Waits until process $1 writes `listening` to its log $2, at most $3 seconds; $4 names it in the messages.
wait_for_listening() {
    local pid=$1 file=$2 seconds=$3 name=${4:-depot} i
    for ((i = 0; i < seconds * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || { cat "$file" >&2; die "$name exited during start"; }
        grep -q 'listening' "$file" && return 0
        sleep 0.1
    done
    die "$name did not start listening within $seconds s"
}

# Starts `$DEPOT serve` over $TMP/config, $TMP/data and $TMP/content on 127.0.0.1 port $1, its log in $TMP/depot.log,
# and waits up to $2 seconds for it to listen (it builds the packs' bundles first). DEPOT_PID is its pid, also in PIDS.
start_depot_serve() {
    DEPOT_LOG_LEVEL=info "$DEPOT" serve --config "$TMP/config" --data-dir "$TMP/data" --content-dir "$TMP/content" \
        --host 127.0.0.1 --port "$1" >"$TMP/depot.out" 2>"$TMP/depot.log" &
    DEPOT_PID=$!
    PIDS+=("$DEPOT_PID")
    wait_for_listening "$DEPOT_PID" "$TMP/depot.log" "$2"
}

# A scratch directory in TMP (named after $1) that goes, with every process recorded in PIDS, when the script
# ends or is interrupted.
start_scratch() {
    TMP=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 755 "$TMP"
    PIDS=()
    trap scratch_cleanup EXIT
    trap 'log "interrupted"; exit 130' INT TERM
}
scratch_cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    ((${#PIDS[@]})) && stop_processes "${PIDS[@]}"
    rm -rf "$TMP"
    exit "$rc"
}

# Valgrind 3.19 under Swift binaries: writes to $2 a copy of the binary $1 without its DWARF 5 debug information, which
# Valgrind cannot read (the symbol table stays, so functions keep their names), and builds once, into CALLGRIND_SHIM, a
# preload whose sigsuspend passes a copy of its mask: Valgrind's sigsuspend writes into the mask it is given, and
# libdispatch's signal thread (started by an async main) passes one in read-only memory, so Valgrind faults.
callgrind_ready_copy() {
    objcopy --strip-debug "$1" "$2" || die "objcopy could not copy $1"
    [[ -n ${CALLGRIND_SHIM:-} ]] && return 0
    CALLGRIND_SHIM=$TMP/sigsuspend-copy.so
    cat >"$TMP/sigsuspend-copy.c" <<'EOF_C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)8);
}
EOF_C
    cc -shared -fPIC -O2 -o "$CALLGRIND_SHIM" "$TMP/sigsuspend-copy.c" || die "cannot build the sigsuspend shim"
}

# The ledger benchmarks' server: development trust, a grant key, generous irregular-activity limits and one
# non-consumable with a 64 KiB pack, in $1/Config and $1/content; $2 (optional) adds top-level members to depot.json
# (each followed by a comma).
ledger_bench_setup() {
    local dir=$1 extra=${2:-}
    mkdir -p "$dir/Config" "$dir/content/level1/Contents" "$dir/data"
    cat >"$dir/Config/depot.json" <<EOF_JSON
{"environment": "development", "app": {"bundleId": "com.example.depot.bench"}, $extra
 "appStore": {"trustDevelopmentRoot": true},
 "grants": {"activeKeyId": "bench", "lifetimeSeconds": 3600,
            "keys": [{"id": "bench", "secret": "YmVuY2gtbGVkZ2VyLWdyYW50LWtleS0zMi1ieXRlcyE="}]},
 "irregularActivity": {"maxClientAddresses": 1000, "maxAccountTokens": 1000}}
EOF_JSON
    echo '{"products": [{"id": "com.example.level1", "type": "nonConsumable", "title": "Level 1"}]}' \
        >"$dir/Config/products.json"
    echo '{"productId": "com.example.level1", "version": "1.0", "publishedAt": "2026-03-01T09:00:00Z"}' \
        >"$dir/content/level1/pack.json"
    head -c 65536 /dev/urandom >"$dir/content/level1/Contents/tiles.bin"
}

# Signs transactions $3 to $4 (distinct ids) of the benchmark's product with `$1 dev sign-transaction` over the
# setup in $2 (its development root, made on first use), into file $5, one JWS per line, in order.
sign_bench_transactions() {
    local bin=$1 dir=$2 first=$3 last=$4 out=$5 signed i
    [[ -d $dir/data/dev-ca ]] || "$bin" dev init --config "$dir/Config" --data-dir "$dir/data" >/dev/null
    rm -rf "$dir/signed" && mkdir -p "$dir/signed"
    seq "$first" "$last" | xargs -P "$(nproc)" -I{} sh -c \
        '"$0" dev sign-transaction --config "$1/Config" --data-dir "$1/data" --product com.example.level1 --transaction-id "$(printf "3%015d" {})" | tail -1 >"$1/signed/{}.jws"' \
        "$bin" "$dir"
    for ((i = first; i <= last; i++)); do cat "$dir/signed/$i.jws"; done >"$out"
    signed=$(grep -c . "$out")
    ((signed == last - first + 1)) || die "expected $((last - first + 1)) signed transactions in $out, found $signed"
}
