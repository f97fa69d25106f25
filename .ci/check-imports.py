#!/usr/bin/env python3
"""Checks the package's layering: the modules each target imports, and the folders inside each target.

1. Imports. For every target, the modules its Swift files import (other than the toolchain's: Foundation,
   Glibc, Dispatch, Testing ...) must be among its declared dependencies, and every declared dependency must
   be imported by at least one of its files.
2. Folders. Inside every target under Sources/, the top-level sub-folders form no dependency cycle, so that
   a target's folders read bottom-up. Folder F depends on folder G when a file in F mentions a type that a
   file in G declares at top level (a `struct`, `class`, `enum`, `protocol`, `actor` or `typealias` starting
   in column 0; nested types do not count, and comments and string literals are skipped). Files directly in
   the target's folder are outside this graph. A cycle is reported with its edges and the types that make
   them, so that one sees which file to move; see docs/ARCHITECTURE.md.

Run from the package root; exits 1 and lists each problem. `--verbose` also prints the edges of the cycles
the allowlist below lets pass.
"""
import collections
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

# Folder cycles tolerated for now, per target: the folders of one known cycle. A cycle passes (with a warning)
# only when all its folders are listed here, so a folder newly joining the cycle, or a cycle in any other target,
# still fails. No target needs one: add an entry only while a target is being restructured, and remove it once
# its folders read bottom-up again.
ALLOWED_CYCLES: dict[str, set[str]] = {}

# A type declared at top level: optional attributes and modifiers, then the keyword, all from column 0.
DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^()\n]*\))?\s+)*((?:(?:public|package|internal|fileprivate|private|open|final|indirect"
    r"|nonisolated|distributed)\s+)*)(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)",
    re.M,
)
# A capitalised identifier not reached through a dot: `Foo.Bar` names the top-level `Foo` only (`.Bar` is a
# member, or a type of another module when `Foo` is a module name).
MENTION = re.compile(r"(?<![.\w])([A-Z][A-Za-z0-9_]*)\b")
CODE_SPECIAL = re.compile(r'//|/\*|#*"|[()]')


def swift_code(text):
    """The text with comments removed and string literals emptied, keeping the code inside interpolations."""
    out = []
    i, n = 0, len(text)
    # Each open construct: ("paren", None) inside code, ("string", (hashes, multiline)) inside a literal.
    stack = []
    while i < n:
        if stack and stack[-1][0] == "string":
            hashes, multiline = stack[-1][1]
            close = ('"""' if multiline else '"') + "#" * hashes
            escape = "\\" + "#" * hashes
            j_close = text.find(close, i)
            j_escape = text.find(escape, i)
            if j_close == -1:
                break
            if j_escape != -1 and j_escape < j_close:
                k = j_escape + len(escape)
                if k < n and text[k] == "(":
                    stack.append(("interpolation", None))
                    out.append("(")
                    i = k + 1
                else:
                    i = k + 1  # an escaped character, `\"` included
                continue
            stack.pop()
            out.append('""')
            i = j_close + len(close)
            continue
        match = CODE_SPECIAL.search(text, i)
        if not match:
            out.append(text[i:])
            break
        out.append(text[i:match.start()])
        token = match.group()
        i = match.end()
        if token == "//":
            end = text.find("\n", i)
            i = n if end == -1 else end
        elif token == "/*":
            depth = 1  # Swift block comments nest
            while depth and i < n:
                opening, closing = text.find("/*", i), text.find("*/", i)
                if closing == -1:
                    i = n
                    break
                if opening != -1 and opening < closing:
                    depth, i = depth + 1, opening + 2
                else:
                    depth, i = depth - 1, closing + 2
            out.append(" ")
        elif token == "(":
            stack.append(("paren", None))
            out.append(token)
        elif token == ")":
            if stack and stack[-1][0] == "interpolation":
                stack.pop()  # back inside the string literal
            elif stack:
                stack.pop()
            out.append(token)
        else:  # a string literal opens: `#*"` or `#*"""`
            hashes = len(token) - 1
            multiline = text.startswith('""', i)
            if multiline:
                i += 2
            stack.append(("string", (hashes, multiline)))
    return "".join(out)


def import_problems(package):
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
    return problems


def folder_graph(root):
    """Edges between the top-level folders of one target: {F: {G: {type: [files of F mentioning it]}}}."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    files[os.path.relpath(path, root)] = swift_code(handle.read())
    folder = {path: path.split(os.sep)[0] if os.sep in path else None for path in files}
    declared_in = {}  # type name -> file declaring it at top level, visible to the whole module
    private_in = collections.defaultdict(set)  # file -> names it declares private or fileprivate
    for path, code in files.items():
        for modifiers, name in DECLARATION.findall(code):
            if "private" in modifiers:
                private_in[path].add(name)
            else:
                declared_in.setdefault(name, path)
    edges = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for path, code in files.items():
        source = folder[path]
        if source is None:
            continue
        for name in sorted(set(MENTION.findall(code)) - private_in[path]):
            home = declared_in.get(name)
            if home is None:
                continue
            target = folder[home]
            if target is not None and target != source:
                edges[source][target][name].append(path)
    return edges


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iteratively; returns the components of more than one node."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges.get(successor, {})))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def describe_cycle(edges, component):
    lines = []
    for source in component:
        for target in sorted(edges[source]):
            if target not in component:
                continue
            mentions = edges[source][target]
            lines.append(f"    {source} -> {target}: {', '.join(sorted(mentions))}")
            for name in sorted(mentions):
                users = ", ".join(sorted(os.path.basename(path) for path in mentions[name]))
                lines.append(f"        {name} is mentioned in {users}")
    return lines


def folder_cycle_problems(package, verbose):
    problems, warnings = [], []
    sources = sorted(
        target["name"] for target in package["targets"] if target["type"] not in ("system", "test")
    )
    for name in sources:
        root = os.path.join("Sources", name)
        edges = folder_graph(root)
        nodes = sorted(set(edges) | {target for source in edges for target in edges[source]})
        allowed = ALLOWED_CYCLES.get(name, set())
        in_cycles = set()
        for component in strongly_connected(nodes, edges):
            in_cycles.update(component)
            if set(component) <= allowed:
                warnings.append(
                    f"warning: {name} has a folder cycle that .ci/check-imports.py allows for now: "
                    + ", ".join(component)
                )
                if verbose:
                    warnings.extend(describe_cycle(edges, component))
                continue
            newcomers = sorted(set(component) - allowed)
            note = f" (not in the allowlist: {', '.join(newcomers)})" if allowed else ""
            problems.append(f"{name}: folders {', '.join(component)} depend on each other in a cycle{note}:")
            problems.extend(describe_cycle(edges, component))
        stale = sorted(allowed - in_cycles)
        if stale:
            warnings.append(
                f"warning: {name}'s allowlisted folders {', '.join(stale)} are no longer in a cycle: "
                "remove them from ALLOWED_CYCLES"
            )
    return problems, warnings, len(sources)


def main():
    verbose = "--verbose" in sys.argv[1:]
    package = json.loads(
        subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout
    )
    failed = False
    problems = import_problems(package)
    if problems:
        failed = True
        print("Package.swift and the imports disagree:")
        for problem in problems:
            print("  " + problem)
    else:
        print(f"imports: every one of {len(package['targets'])} targets declares exactly what it imports")
    problems, warnings, count = folder_cycle_problems(package, verbose)
    for warning in warnings:
        print(warning)
    if problems:
        failed = True
        print("Folders inside a target depend on each other in a cycle (move the files named below so that")
        print("one folder of each cycle no longer mentions the other's types; see docs/ARCHITECTURE.md):")
        for problem in problems:
            print("  " + problem)
    else:
        allowed = " but for the allowed cycles above" if any(w.startswith("warning: ") for w in warnings) else ""
        print(f"folders: the folders of each of {count} source targets depend on each other without a cycle{allowed}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
