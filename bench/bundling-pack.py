#!/usr/bin/env python3
"""Writes a deterministic mixed content pack for bench/bundling.sh.

usage: bundling-pack.py DIR [--scale N] [--huge-mib M] [--divide D]

The same arguments always give the same bytes (Python's seeded Mersenne Twister). At scale 1 the pack is
about 130 MiB: text and JSON (compressible), PNG/JPEG-like media (random bytes behind a real signature,
as already-compressed images are), small UI strings, and one 48 MiB binary of mixed records (partly
compressible). --huge-mib adds Contents/huge.bin of M MiB (mixed the same way) for memory measurements.
--divide D keeps the same kinds of files but D times fewer of each and a D times smaller binary (bench/smoke.sh
uses 40: a pack of a few MiB).
"""

import argparse
import array
import json
import os
import random

WORDS = (
    "level enemy spawn treasure door key boss health coin map castle forest river bridge tower "
    "the a of and to in is you that it he was for on are as with his they at be this have from "
    "sword shield potion magic quest dragon knight village merchant gold silver armor helmet"
).split()


def write(root, path, data):
    full = os.path.join(root, "Contents", path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)


def text(rng, size):
    out = []
    total = 0
    while total < size:
        line = " ".join(rng.choices(WORDS, k=rng.randint(4, 16))).capitalize() + ".\n"
        out.append(line)
        total += len(line)
    return "".join(out).encode()[:size]


def level_json(rng, index):
    entities = [
        {"id": i, "kind": rng.choice(["enemy", "coin", "door", "key", "spawn"]),
         "x": rng.randint(0, 4096), "y": rng.randint(0, 4096), "hp": rng.randint(1, 100),
         "tags": rng.sample(WORDS, 3)}
        for i in range(rng.randint(500, 4000))
    ]
    return json.dumps({"level": index, "name": " ".join(rng.sample(WORDS, 3)), "entities": entities},
                      indent=2, sort_keys=True).encode()


def media(rng, kind, size):
    header = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" if kind == "png" else b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"
    return header + rng.randbytes(size - len(header))


def mixed_binary(rng, size, path_root, path):
    """Segments of 64 KiB to 1 MiB: random (a third), integer tables, text; written as it goes. The first
    segment is text, so the bundler's probe of the file's start sees compressible data and deflates it."""
    full = os.path.join(path_root, "Contents", path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    written = 0
    with open(full, "wb") as f:
        while written < size:
            length = min(rng.randint(64, 1024) << 10, size - written)
            kind = rng.randrange(3) if written else 2
            if kind == 0:
                data = rng.randbytes(length)
            elif kind == 1:
                start = rng.randrange(1 << 20)
                values = array.array("i", range(start, start + length // 8))
                values.extend(rng.randrange(1 << 12) for _ in range(length // 64))
                data = values.tobytes()
            else:
                data = text(rng, length)
            data = (data * (length // max(len(data), 1) + 1))[:length]
            f.write(data)
            written += length


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--huge-mib", type=int, default=0)
    parser.add_argument("--divide", type=int, default=1)
    args = parser.parse_args()
    if args.divide < 1:
        parser.error("--divide must be at least 1")

    def count(n):
        return max(1, n // args.divide)

    root = args.dir
    os.makedirs(os.path.join(root, "Contents"), exist_ok=True)
    with open(os.path.join(root, "pack.json"), "w") as f:
        json.dump({"productId": "com.example.bench.pack", "version": "1.0",
                   "publishedAt": "2026-03-01T09:00:00Z", "title": "Bundling benchmark"}, f)
    for copy in range(args.scale):
        rng = random.Random(20260301 + copy)
        prefix = f"set{copy}/" if args.scale > 1 else ""
        for i in range(count(120)):
            write(root, f"{prefix}text/chapter{i:03}.txt", text(rng, rng.randint(16 << 10, 480 << 10)))
        for i in range(count(80)):
            write(root, f"{prefix}levels/level{i:03}.json", level_json(rng, i))
        for i in range(count(40)):
            write(root, f"{prefix}media/photo{i:03}.jpg", media(rng, "jpg", rng.randint(200 << 10, 900 << 10)))
            write(root, f"{prefix}media/sprite{i:03}.png", media(rng, "png", rng.randint(40 << 10, 400 << 10)))
        for i in range(count(400)):
            write(root, f"{prefix}ui/strings{i:03}.txt", text(rng, rng.randint(64, 4096)))
        mixed_binary(rng, (48 << 20) // args.divide, root, f"{prefix}data/world.bin")
    if args.huge_mib:
        mixed_binary(random.Random(15), args.huge_mib << 20, root, "huge.bin")


if __name__ == "__main__":
    main()
