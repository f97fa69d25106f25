#!/usr/bin/env bash
# Runs the test suite tier by tier, each in its own test process, and says how long each took. A tier is a set of
# test targets, chosen by what their tests start:
#
#   fast         nothing: pure logic, EmbeddedChannel, real SQLite files in a temporary folder. No process, no
#                socket, no PostgreSQL: what a developer runs on every change (`bash Tests/tiers.sh fast`)
#   integration  in-process servers on loopback sockets (Depot, the store doubles), driven by raw HTTP, the SDK and
#                URLSession, and PostgreSQL: the ledger's suite again on PostgreSQL alone (DEPOT_TEST_ENGINES)
#   system       child processes and real tools: depot serve and depot publish as processes, kill -9, nginx,
#                curl, wget, aria2c, zip, unzip, Python's zipfile and tus clients, Schemathesis, TLS, Ceph, browsers
#
#   bash Tests/tiers.sh              every tier, in order
#   bash Tests/tiers.sh fast         one tier (or several: fast integration)
#
# Every tier runs even when an earlier one failed (a run shows all its failures); the exit status is nonzero
# when any tier failed. Every test belongs to exactly one tier: a test target the tiers below do not name
# fails the run before anything runs. `swift test` alone still runs everything in one process.
set -uo pipefail
cd "$(dirname "$0")/.."

fast='DepotCoreTests|DepotAPITests|DepotOriginTests|DepotTelemetryTests|DepotObjectStoreTests|DepotHTTPTests|DepotTrustTests|DepotServicesTests|DepotSettingsTests|DepotClientTests|DepotLedgerTests|DepotServerTests'
integration='DepotIntegrationTests|DepotAppStoreTests|DepotGooglePlayTests'
system='DepotSystemTests|DepotBundlesTests|DepotArchivesTests'
# The targets whose tests run on each ledger engine: on SQLite in the fast tier, on PostgreSQL in the integration tier.
ledger='DepotLedgerTests'
tiers=("$@")
if [[ ${#tiers[@]} -eq 0 ]]; then tiers=(fast integration system); fi
for tier in "${tiers[@]}"; do
    case $tier in
        fast | integration | system) ;;
        *) echo "Tests/tiers.sh: no tier named $tier (fast, integration, system)" >&2; exit 2 ;;
    esac
done

swift build --build-tests || exit 1

untiered="$(swift test list --skip-build | cut -d. -f1 | sort -u | grep -v -x -E "$fast|$integration|$system" || true)"
if [[ -n "$untiered" ]]; then
    echo "Tests/tiers.sh: these test targets belong to no tier; add each to one: $untiered" >&2
    exit 1
fi

status=0
summary=""
# Runs the tests of the targets `$2` in one process, under the environment assignments that follow.
run() {
    local label=$1 pattern=$2
    shift 2
    echo "=== tier $label: $pattern ==="
    # Line-buffered, so that the log shows every test that started, up to the last line, even when a run is
    # stopped from outside.
    env "$@" stdbuf -oL -eL swift test --skip-build --filter "^($pattern)\." || status=1
}
for tier in "${tiers[@]}"; do
    start=$(date +%s)
    case $tier in
        # The fast tier never reaches a PostgreSQL, even when one is configured.
        fast) run fast "$fast" -u DEPOT_TEST_POSTGRES_URL DEPOT_TEST_ENGINES=sqlite ;;
        integration)
            run integration "$integration"
            run "integration (the ledger on PostgreSQL)" "$ledger" DEPOT_TEST_ENGINES=postgres
            ;;
        system) run system "$system" ;;
    esac
    seconds=$(($(date +%s) - start))
    summary+="tier $tier: ${seconds} s"$'\n'
done
echo "=== tiers ==="
printf '%s' "$summary"
exit "$status"
