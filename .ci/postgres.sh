#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the ledger's tests and prints, on its LAST line of output,
#   export DEPOT_TEST_POSTGRES_URL=postgres://depot@127.0.0.1:PORT/depot
# so that CI can do:  eval "$(bash .ci/postgres.sh | tail -1)"
#
# - Runs the server as the `postgres` user (PostgreSQL refuses to run as root); installs Debian's
#   `postgresql` package when no initdb/pg_ctl is found.
# - Idempotent: the cluster lives in $DEPOT_PG_DIR (default /tmp/depot-test-postgres); a second run
#   reuses a running server, restarts a stopped one, and only initialises a new one when none exists.
#   The server keeps running in the background after this script exits (`pg_ctl stop -D DIR/data` ends it).
# - Listens on 127.0.0.1 at a free port (from 54320 up) and on a unix socket in $DEPOT_PG_DIR.
#   Trust authentication on loopback and the socket: this cluster is for tests on this machine only.
# - Durability: fsync stays ON by default, so the cluster behaves like a real one (the suite is small
#   and the cost measured here was low). DEPOT_PG_FSYNC=off turns fsync, synchronous_commit and
#   full_page_writes off for speed on slow disks; nothing in the suite depends on surviving a power cut
#   of the test cluster itself.
# All diagnostics go to stderr; only the export line goes to stdout.
set -euo pipefail

dir="${DEPOT_PG_DIR:-/tmp/depot-test-postgres}"
fsync="${DEPOT_PG_FSYNC:-on}"
role=depot
database=depot

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
    local candidate
    # Highest installed major version first.
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
        if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
            echo "$candidate"
            return 0
        fi
    done
    if command -v pg_config >/dev/null 2>&1; then
        candidate="$(pg_config --bindir)"
        if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
            echo "$candidate"
            return 0
        fi
    fi
    # /usr/local/bin/{initdb,pg_ctl} may be links into one of the above; resolve them.
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        candidate="$(dirname "$(readlink -f "$(command -v initdb)")")"
        if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
            echo "$candidate"
            return 0
        fi
    fi
    return 1
}

bindir="$(find_bindir || true)"
if [[ -z "$bindir" ]] || ! id postgres >/dev/null 2>&1; then
    if [[ "$(id -u)" -ne 0 ]]; then
        log "no PostgreSQL server binaries found; install Debian's 'postgresql' package"
        exit 1
    fi
    log "installing PostgreSQL"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y --no-install-recommends postgresql >&2
    bindir="$(find_bindir)"
fi
log "using $bindir ($("$bindir/pg_ctl" --version))"

# Run a command as the cluster's owner: `postgres` when we are root, ourselves otherwise.
if [[ "$(id -u)" -eq 0 ]]; then
    owner=postgres
    as_owner() {
        if command -v runuser >/dev/null 2>&1; then
            runuser -u postgres -- "$@"
        else
            su -s /bin/sh postgres -c "$(printf '%q ' "$@")"
        fi
    }
else
    owner="$(id -un)"
    as_owner() { "$@"; }
fi

port_is_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

mkdir -p "$dir"
chown "$owner" "$dir"
chmod 0700 "$dir"
data="$dir/data"

if [[ ! -s "$data/PG_VERSION" ]]; then
    log "initialising a new cluster in $data"
    rm -rf "$data"
    as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >&2 \
        || as_owner "$bindir/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C >&2
    rm -f "$dir/port"
fi

if as_owner "$bindir/pg_ctl" status -D "$data" >/dev/null 2>&1 && [[ -s "$dir/port" ]]; then
    port="$(cat "$dir/port")"
    log "reusing the server already running on port $port"
else
    port="${DEPOT_PG_PORT:-}"
    if [[ -z "$port" ]]; then
        port=54320
        while ! port_is_free "$port"; do
            port=$((port + 1))
            if ((port > 54420)); then
                log "no free port between 54320 and 54420"
                exit 1
            fi
        done
    fi
    echo "$port" >"$dir/port"
    settings="-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir -c max_connections=500"
    if [[ "$fsync" == off ]]; then
        settings="$settings -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    log "starting on 127.0.0.1:$port (fsync=$fsync)"
    as_owner "$bindir/pg_ctl" start -D "$data" -w -t 60 -l "$dir/server.log" -o "$settings" >&2 || {
        log "pg_ctl start failed; server log follows"
        tail -n 50 "$dir/server.log" >&2 || true
        exit 1
    }
fi

psql_admin() {
    as_owner "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres "$@"
}
if [[ "$(psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$role'")" != 1 ]]; then
    psql_admin -c "CREATE ROLE $role LOGIN CREATEDB" >&2
fi
if [[ "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]]; then
    psql_admin -c "CREATE DATABASE $database OWNER $role" >&2
fi

log "ready; unix socket form: postgres://$role@/$database?host=$dir&port=$port"
echo "export DEPOT_TEST_POSTGRES_URL=postgres://$role@127.0.0.1:$port/$database"
