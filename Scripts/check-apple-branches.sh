#!/usr/bin/env bash
# Compiles the Apple-platform side of Kilo's `#if` branches on Linux, so that code only Apple
# platforms build is checked on every CI run here too (nothing here builds for Apple platforms).
#
#     bash Scripts/check-apple-branches.sh
#
# It copies Package.swift, Sources, Tests and Examples into .build-apple/package, forces each
# platform condition there to the value it has on Apple platforms, and builds the library and its
# tests with warnings as errors (scratch path .build-apple/build, ignored by git):
#
#   canImport(FoundationNetworking)                    false: URLSession is in Foundation there
#   canImport(Synchronization) && !canImport(Darwin)   false: Kilo's lock is NSLock there
#
# and adds `import FoundationNetworking` to each Swift file, which on Apple platforms Foundation
# itself provides. Conditions left alone: `canImport(Glibc)` / `canImport(Darwin)` pairs that only
# pick the C library to import (Darwin does not exist here), `os(macOS) && arch(x86_64)` (a test of
# the CPU, not of the SDK), `compiler(...)` and Kilo's own KILO_ASYNC_HTTP_CLIENT flag.
#
# A new platform condition fails the check until this script knows what to do with it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

work=.build-apple
mkdir -p "$work/package"

python3 - "$work/package" <<'PYTHON'
import os, re, shutil, sys

destination = sys.argv[1]
roots = ["Package.swift", "Sources", "Tests", "Examples"]

# Conditions and their Apple values, most specific first.
forced = [
    (re.compile(r"canImport\(Synchronization\)\s*&&\s*!canImport\(Darwin\)"), "false"),
    (re.compile(r"canImport\(FoundationNetworking\)"), "false"),
    (re.compile(r"os\(Linux\)"), "false"),
]
# Conditions known and left alone (see the script's header).
known = re.compile(
    r"canImport\((Glibc|Darwin|Musl)\)|os\(macOS\)\s*&&\s*arch\(x86_64\)|compiler\([^)]*\)|KILO_ASYNC_HTTP_CLIENT|\b(true|false)\b"
)
directive = re.compile(r"^\s*#(if|elseif)\b(.*)$")

unknown = []
wanted = set()

def rewrite(path, text):
    lines = []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        match = directive.match(line)
        if match:
            for pattern, value in forced:
                line = pattern.sub(value, line)
            rest = known.sub("", directive.match(line).group(2))
            if re.search(r"[A-Za-z_]", rest.split("//")[0]):
                unknown.append("%s:%d: %s" % (path, number, line.strip()))
        lines.append(line)
    text = "".join(lines)
    if path.endswith(".swift") and path != "Package.swift":
        # What Foundation provides on Apple platforms; placed before the first import, or at the top.
        first = re.search(r"^(@\w+\s+)*import\s", text, flags=re.M)
        at = first.start() if first else 0
        text = text[:at] + "import FoundationNetworking  // Foundation has it on Apple platforms\n" + text[at:]
    return text

for root in roots:
    paths = [root] if os.path.isfile(root) else [
        os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names]
    for path in paths:
        target = os.path.join(destination, path)
        wanted.add(os.path.normpath(target))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if path.endswith(".swift"):
            with open(path, encoding="utf-8") as source:
                text = rewrite(path, source.read())
            old = open(target, encoding="utf-8").read() if os.path.exists(target) else None
            if old != text:  # unchanged files keep their time, so the build stays incremental
                with open(target, "w", encoding="utf-8") as copy:
                    copy.write(text)
        elif not os.path.exists(target) or open(path, "rb").read() != open(target, "rb").read():
            shutil.copy2(path, target)

for folder, _, names in os.walk(destination, topdown=False):
    for name in names:
        path = os.path.normpath(os.path.join(folder, name))
        if path not in wanted:
            os.remove(path)
    if not os.listdir(folder) and folder != destination:
        os.rmdir(folder)

if unknown:
    print("error: platform conditions this script does not know; add them to its tables:", file=sys.stderr)
    print("\n".join("  " + line for line in unknown), file=sys.stderr)
    sys.exit(1)
PYTHON

echo "==> Building the Apple branches (library and tests, warnings as errors) in $work/package"
swift build --package-path "$work/package" --scratch-path "$work/build" --build-tests -Xswiftc -warnings-as-errors
echo "The Apple branches build."
