#!/usr/bin/env bash
# Runs the test suite tier by tier, each in its own test process, and says how long each took:
#
#   fast         pure logic, EmbeddedChannel, real SQLite files, the test PostgreSQL, the App Store double in process:
#                no child process, no external tool, no Depot server on a socket
#   integration  in-process servers on loopback sockets, driven by raw HTTP, the SDK and URLSession
#   system       child processes and real tools: depot serve and depot publish as processes, kill -9, nginx,
#                curl, wget, aria2c, zip, unzip, Python's zipfile and tus clients, Schemathesis, TLS
#
# Every tier runs even when an earlier one failed (a run shows all its failures); the exit status is nonzero
# when any tier failed. Every test belongs to exactly one tier: a test target the tiers below do not name
# fails the run before anything runs. `swift test` alone still runs everything in one process.
set -uo pipefail
cd "$(dirname "$0")/.."

fast='DepotCoreTests|DepotObjectStoreTests|DepotHTTPTests|DepotTrustTests|DepotAppStoreTests|DepotGooglePlayTests|DepotServicesTests|DepotClientTests|DepotLedgerTests|DepotServerTests'
integration='DepotIntegrationTests'
system='DepotSystemTests|DepotBundlesTests|DepotArchivesTests'

swift build --build-tests || exit 1

untiered="$(swift test list --skip-build | cut -d. -f1 | sort -u | grep -v -x -E "$fast|$integration|$system" || true)"
if [[ -n "$untiered" ]]; then
    echo "Tests/tiers.sh: these test targets belong to no tier; add each to one: $untiered" >&2
    exit 1
fi

status=0
summary=""
for tier in fast integration system; do
    pattern="${!tier}"
    echo "=== tier $tier: $pattern ==="
    start=$(date +%s)
    # Line-buffered, so that the log shows every test that started, up to the last line, even when a run is
    # stopped from outside.
    stdbuf -oL -eL swift test --skip-build --filter "^($pattern)\." || status=1
    seconds=$(($(date +%s) - start))
    summary+="tier $tier: ${seconds} s"$'\n'
done
echo "=== tiers ==="
printf '%s' "$summary"
exit "$status"
