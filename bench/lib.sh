# Shared by the benchmark scripts (sourced): messages, free ports, stopping the servers a run started.

# A timestamped message on standard error.
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# Stops the run with a message.
die() {
    log "FAIL: $*"
    exit 1
}

# Whether nothing listens on TCP port $1.
port_is_free() { ! ss -Hltn "sport = :$1" | grep -q .; }

# The first free port from $1 on.
pick_port() {
    local port=$1
    while ! port_is_free "$port"; do port=$((port + 1)); done
    echo "$port"
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
