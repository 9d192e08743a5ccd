#!/usr/bin/env bash
# Checks that the README's command-line program runs as written: copies its `main.swift` (the
# first Swift block under "## Use it") into a package of its own in .build-readme, which depends
# on this checkout by path, builds it, and runs it against the sample service on 127.0.0.1.
#
#     bash Scripts/check-readme-example.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source Scripts/servers.sh

work=.build-readme
mkdir -p "$work/Sources/Hello"
python3 - README.md "$work/Sources/Hello/main.swift" <<'PYTHON'
import re, sys
readme = open(sys.argv[1], encoding="utf-8").read()
section = readme.split("\n## Use it\n", 1)[1]
match = re.search(r"^```swift\n(.*?)^```", section, flags=re.S | re.M)
if not match or "import Kilo" not in match.group(1):
    sys.exit("error: no Swift program under the README's '## Use it'")
old = open(sys.argv[2], encoding="utf-8").read() if __import__("os").path.exists(sys.argv[2]) else None
if old != match.group(1):
    open(sys.argv[2], "w", encoding="utf-8").write(match.group(1))
PYTHON
repository=$(basename "$PWD")
cat >"$work/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Hello",
    platforms: [.macOS(.v12)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "Hello", dependencies: [.product(name: "Kilo", package: "$repository")])
    ]
)
EOF

echo "==> Building the README's program ($work/Sources/Hello/main.swift)"
swift build --package-path "$work"

kilo_install_python_deps
trap kilo_stop_servers EXIT
kilo_start_sample_service
echo "==> Running it against $KILO_SAMPLE_URL"
output=$("$(swift build --package-path "$work" --show-bin-path)/Hello" "$KILO_SAMPLE_URL")
echo "$output"
expected=$'[0, 1, 1, 2, 3, 5, 8, 13]\n6.5'
if [ "$output" != "$expected" ]; then
    echo "error: the README's program printed something else; expected:" >&2
    echo "$expected" >&2
    exit 1
fi
echo "The README's program runs as written."
