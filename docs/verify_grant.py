#!/usr/bin/env python3
"""Checks a Depot grant for one bundle with the shared grant keys, as described in docs/grants.md.

Usage: verify_grant.py GRANT DIGEST KEY_ID=BASE64_SECRET [KEY_ID=BASE64_SECRET ...]
Prints "ok" and exits 0 when the grant opens the bundle now, else prints the refusal code and exits 1.
"""
import base64
import hashlib
import hmac
import re
import sys
import time

SAFE = re.compile(r"[A-Za-z0-9_-]*")


def b64url(text):
    """Strict unpadded base64url (RFC 4648 section 5); None when it is not."""
    if not SAFE.fullmatch(text) or len(text) % 4 == 1:
        return None
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def verify(grant, digest, keys, now=None):
    """Returns "ok" or the refusal code Depot itself would give (grant-malformed, grant-unknown-key, ...)."""
    fields = grant.split(".")
    if len(grant) > 512 or len(fields) != 5 or fields[0] != "g1":
        return "grant-malformed"
    _, key_id, expires_at, sealed, mac = fields
    if not (1 <= len(key_id) <= 64 and SAFE.fullmatch(key_id)) or len(sealed) > 96 or not SAFE.fullmatch(sealed):
        return "grant-malformed"
    if not (expires_at.isdigit() and expires_at.isascii() and len(expires_at) <= 12):
        return "grant-malformed"
    presented = b64url(mac) if len(mac) == 43 else None
    if presented is None or len(presented) != 32:
        return "grant-malformed"
    key = keys.get(key_id)
    if key is None:
        return "grant-unknown-key"
    message = "depot-grant-v1\n%s\n%s\n%s\n%s" % (key_id, digest, expires_at, sealed)
    expected = hmac.new(key, message.encode("ascii"), hashlib.sha256).digest()
    if not hmac.compare_digest(expected, presented):
        return "grant-bad-signature"
    if int(expires_at) <= int(time.time() if now is None else now):
        return "grant-expired"
    return "ok"


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    grant, digest = sys.argv[1], sys.argv[2]
    keys = {}
    for argument in sys.argv[3:]:
        key_id, _, secret = argument.partition("=")
        keys[key_id] = base64.b64decode(secret, validate=True)
    answer = verify(grant, digest, keys)
    print(answer)
    sys.exit(0 if answer == "ok" else 1)
