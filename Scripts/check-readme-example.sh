#!/usr/bin/env bash
# Checks that the README's command-line program runs as written: copies its `main.swift` (the
# first Swift block under "## Use it") into a package of its own in .build-readme, which depends
# on this checkout by path, builds it, and runs it against the sample service on 127.0.0.1.
#
# Three variants of it run too, each a change a user makes to its result handler, written in
# top-level code and so the main actor's: a closure inside it (`result.map { $0 }`); that,
# `@Sendable`; and that closure on a callback queue of the program's own (where it trapped in
# `dispatch_assert_queue` until Kilo ran such a handler on the caller's actor).
#
#     bash Scripts/check-readme-example.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source Scripts/servers.sh

work=.build-readme
mkdir -p "$work/Sources"
python3 - README.md "$work/Sources" <<'PYTHON'
import os, re, sys
readme = open(sys.argv[1], encoding="utf-8").read()
section = readme.split("\n## Use it\n", 1)[1]
match = re.search(r"^```swift\n(.*?)^```", section, flags=re.S | re.M)
if not match or "import Kilo" not in match.group(1):
    sys.exit("error: no Swift program under the README's '## Use it'")
program = match.group(1)

def changed(text, old, new):
    if old not in text:
        sys.exit("error: the README's program no longer has %r, which a variant changes" % old)
    return text.replace(old, new)

handler = "{ (result: Result<Double, Error>) in"
mapped = changed(program, "continuation.resume(with: result)", "continuation.resume(with: result.map { $0 })")
variants = {
    "Hello": program,
    "HelloMap": mapped,
    "HelloSendableMap": changed(mapped, handler, "{ @Sendable (result: Result<Double, Error>) in"),
    "HelloOwnQueueMap": changed(
        mapped,
        "let sum: Double",
        'proxy.callbackQueue = DispatchQueue(label: "results")\nlet sum: Double',
    ),
}
for name, text in variants.items():
    os.makedirs(os.path.join(sys.argv[2], name), exist_ok=True)
    path = os.path.join(sys.argv[2], name, "main.swift")
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    if old != text:
        open(path, "w", encoding="utf-8").write(text)
PYTHON
variants=(Hello HelloMap HelloSendableMap HelloOwnQueueMap)
repository=$(basename "$PWD")
{
    printf '// swift-tools-version:6.0\nimport PackageDescription\n\n'
    printf 'let package = Package(\n    name: "Hello",\n    platforms: [.macOS(.v12)],\n'
    printf '    dependencies: [.package(path: "..")],\n    targets: [\n'
    for variant in "${variants[@]}"; do
        printf '        .executableTarget(name: "%s", dependencies: [.product(name: "Kilo", package: "%s")]),\n' \
            "$variant" "$repository"
    done
    printf '    ]\n)\n'
} >"$work/Package.swift.new"
cmp -s "$work/Package.swift.new" "$work/Package.swift" || mv "$work/Package.swift.new" "$work/Package.swift"
rm -f "$work/Package.swift.new"

echo "==> Building the README's program and its variants ($work/Sources/*/main.swift)"
swift build --package-path "$work"

kilo_install_python_deps
trap kilo_stop_servers EXIT
kilo_start_sample_service
bin=$(swift build --package-path "$work" --show-bin-path)
expected=$'[0, 1, 1, 2, 3, 5, 8, 13]\n6.5'
for variant in "${variants[@]}"; do
    echo "==> Running $variant against $KILO_SAMPLE_URL"
    status=0
    output=$("$bin/$variant" "$KILO_SAMPLE_URL") || status=$?
    echo "$output"
    if [ "$status" -ne 0 ] || [ "$output" != "$expected" ]; then
        echo "error: $variant exited with status $status, or printed something else; expected:" >&2
        echo "$expected" >&2
        exit 1
    fi
done
echo "The README's program runs as written, and with each variant."
