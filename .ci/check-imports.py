#!/usr/bin/env python3
"""Checks that Package.swift declares exactly the modules each target imports.

For every target, the modules its Swift files import (other than the toolchain's: Foundation, Glibc,
Dispatch, Testing ...) must be among its declared dependencies, and every declared dependency must be
imported by at least one of its files. Run from the package root; exits 1 and lists each mismatch.
"""
import json
import os
import re
import subprocess
import sys

TOOLCHAIN = {
    "Foundation", "FoundationNetworking", "FoundationEssentials", "CoreFoundation", "Glibc", "Musl", "Darwin",
    "Dispatch", "Synchronization", "Testing", "XCTest", "os", "Observation", "_Concurrency", "Swift",
}
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)

package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
problems = []
for target in package["targets"]:
    if target["type"] == "system":
        continue
    name = target["name"]
    root = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
    imported = set()
    for directory, _, files in os.walk(root):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(directory, file), encoding="utf-8") as handle:
                    # Swift module names start with a capital; lowercase ones are other languages' imports
                    # inside string literals (Python scripts the tests run).
                    imported.update(m for m in IMPORT.findall(handle.read()) if m[0].isupper())
    imported -= TOOLCHAIN | {name}
    declared = set()
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        declared.add(value[0])
    for module in sorted(imported - declared):
        problems.append(f"{name} imports {module} without declaring it")
    for module in sorted(declared - imported):
        problems.append(f"{name} declares {module} but no file of it imports it")

if problems:
    print("Package.swift and the imports disagree:")
    for problem in problems:
        print("  " + problem)
    sys.exit(1)
print(f"imports: every one of {len(package['targets'])} targets declares exactly what it imports")
