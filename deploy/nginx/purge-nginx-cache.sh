#!/bin/sh
# Depot's purge hook for the nginx edge in depot-edge.conf.template (see README.md beside this file): deletes
# from the edge's cache the answers a change made stale. In Config/depot.json on the origin:
#
#   "edge": {"purge": {"command": ["/path/to/purge-nginx-cache.sh", "/var/cache/depot-edge"]}}
#
# with the edge's ${CACHE_DIR} as the first argument. Depot adds the purge tags as further arguments (unused
# here: nginx keys its cache by path) and writes {"tags": [...], "paths": [...], "reason": "..."} on standard
# input. Run it on the edge's machine, as a user who may delete nginx's cache files. For a remote edge, run
# it there through ssh, or point edge.purge.url at a small receiver on the edge.
#
# nginx without the commercial proxy_cache_purge names each cache file after the MD5 of its cache key, and
# the key is written at the start of the file ("KEY: ..."). Product lists are keyed by their path, in
# ${CACHE_DIR}/lists without subdirectories, so their file is found by name. Bundles are keyed by path and
# slice, so their files are found by the KEY line (this reads the first bytes of every cached bundle file;
# bundles never change, so dropping them is never needed for correct answers).
set -eu

cache_dir=${1:?usage: purge-nginx-cache.sh CACHE_DIR [TAG...]}
input=$(cat)
# Depot writes compact JSON with sorted keys and paths that hold no quotes, commas or brackets.
paths=$(printf '%s' "$input" | sed -n 's/.*"paths":\[\([^]]*\)\].*/\1/p' | tr ',' '\n' | tr -d '"')

for path in $paths; do
    case "$path" in
    /products_v1.json | /v1/products)
        key_hash=$(printf '%s' "$path" | md5sum | cut -c1-32)
        rm -f "$cache_dir/lists/$key_hash"
        ;;
    /v1/bundles/*)
        if [ -d "$cache_dir/bundles" ]; then
            find "$cache_dir/bundles" -type f | while read -r file; do
                if head -c 1024 "$file" | grep -aq "^KEY: $path"; then rm -f "$file"; fi
            done
        fi
        ;;
    esac
done
