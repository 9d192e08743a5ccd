#!/usr/bin/env bash
# Checks that what the docs show is what Kilo accepts, and that what Kilo refuses it refuses with
# the message it should:
#
# 1. Compiles every ```swift block of README.md and Docs/*.md, in a test target of a package of
#    its own (.build-snippets, depending on this checkout by path). A snippet is a fragment: it is
#    compiled as the body of a `@MainActor` async function, beside
#    Scripts/doc-snippets/Context.swift, which declares the names it uses without declaring them
#    (`proxy`, `User`, `photoURL`, …); its `import` lines go to the top of its file. A snippet
#    that declares `@Test` functions is a test file of its own, compiled with only its imports
#    (Foundation, Kilo and Testing when it has none). `…` marks code left out: a line of it
#    alone is dropped, and `{ … }` or `in … }` becomes `fatalError()`.
#    Skipped, each with its reason (SKIPPED below): Package.swift fragments, and the SwiftNIO
#    transport's example, which needs that package (tested by its own suite).
# 2. Type-checks each file of Scripts/doc-snippets/refused against the Kilo just built, and checks
#    that it fails with every diagnostic its `// expected-error: …` lines name, and no others.
#
#     bash Scripts/check-doc-snippets.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

work=.build-snippets
target="$work/Tests/SnippetTests"
mkdir -p "$target"
python3 - "$target" README.md Docs/*.md <<'PYTHON'
import os, re, sys

SKIPPED = {
    ("README.md", "dependencies: ["): "a Package.swift fragment",
    ("Docs/Transports.md", "// Package.swift"): "a Package.swift fragment",
    ("Docs/Transports.md", "import AsyncHTTPClient"): "needs the SwiftNIO transport package",
}
IMPORTS = re.compile(r"^(?:#if canImport\(\w+\)\n(?:import \w+.*\n)+#endif\n|import \w+.*\n)", re.M)

target, documents = sys.argv[1], sys.argv[2:]
files = {}
for document in documents:
    text = open(document, encoding="utf-8").read()
    for match in re.finditer(r"^```swift\n(.*?)^```", text, flags=re.S | re.M):
        line = text[: match.start()].count("\n") + 1
        snippet = match.group(1)
        reason = next((r for (d, start), r in SKIPPED.items() if d == document and snippet.startswith(start)), None)
        if reason:
            print("skipped %s:%d: %s" % (document, line, reason))
            continue
        snippet = re.sub(r"^[ \t]*…[ \t]*\n", "", snippet, flags=re.M)
        snippet = snippet.replace("{ … }", "{ fatalError() }").replace(" in … }", " in fatalError() }")
        name = "%s_%d" % (re.sub(r"\W", "_", os.path.splitext(os.path.basename(document))[0]), line)
        source = "// %s:%d\n" % (document, line)
        if re.search(r"^@Test\b", snippet, flags=re.M):
            # A test file: its own imports only, or, if it has none, the usual three.
            if not IMPORTS.search(snippet):
                source += "import Foundation\nimport Kilo\nimport Testing\n\n"
            source += snippet
        else:
            imports = "".join(m.group(0) for m in IMPORTS.finditer(snippet))
            body = IMPORTS.sub("", snippet)
            body = "".join("    " + l if l.strip() else l for l in body.splitlines(True))
            source += imports + "import Foundation\nimport Kilo\nimport Testing\n\n"
            source += "@MainActor func snippet_%s() async throws {\n%s}\n" % (name, body)
        files["Snippet_%s.swift" % name] = source
for existing in os.listdir(target):
    if existing.startswith("Snippet_") and existing not in files:
        os.remove(os.path.join(target, existing))
for name, source in files.items():
    path = os.path.join(target, name)
    if not os.path.exists(path) or open(path, encoding="utf-8").read() != source:
        open(path, "w", encoding="utf-8").write(source)
print("%d snippets to compile" % len(files))
PYTHON
cmp -s Scripts/doc-snippets/Context.swift "$target/Context.swift" || cp Scripts/doc-snippets/Context.swift "$target/"
repository=$(basename "$PWD")
cat >"$work/Package.swift.new" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Snippets",
    platforms: [.macOS(.v12)],
    dependencies: [.package(path: "..")],
    targets: [
        .testTarget(name: "SnippetTests", dependencies: [.product(name: "Kilo", package: "$repository")])
    ]
)
MANIFEST
cmp -s "$work/Package.swift.new" "$work/Package.swift" || mv "$work/Package.swift.new" "$work/Package.swift"
rm -f "$work/Package.swift.new"

echo "==> Compiling the docs' snippets ($target)"
swift build --package-path "$work" --build-tests -Xswiftc -suppress-warnings

echo "==> Type-checking what Kilo must refuse (Scripts/doc-snippets/refused)"
modules="$(swift build --package-path "$work" --build-tests -Xswiftc -suppress-warnings --show-bin-path)/Modules"
failed=0
for file in Scripts/doc-snippets/refused/*.swift; do
    status=0
    output=$(swiftc -typecheck -swift-version 6 -I "$modules" "$file" 2>&1) || status=$?
    expected=$(sed -n 's|^ *// expected-error: ||p' "$file")
    actual=$(printf '%s\n' "$output" | sed -n 's|^[^ ]*:[0-9]*:[0-9]*: error: ||p' | sort -u)
    if [ "$status" -eq 0 ] || [ -z "$expected" ] || [ "$(printf '%s\n' "$expected" | sort -u)" != "$actual" ]; then
        printf 'error: %s: expected these errors, and only these:\n%s\nbut got:\n%s\n' \
            "$file" "$expected" "$output" >&2
        failed=1
    else
        echo "refused as expected: $file"
    fi
done
exit "$failed"
