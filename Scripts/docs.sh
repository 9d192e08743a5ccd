#!/usr/bin/env bash
# Builds Kilo's documentation with the toolchain's own DocC, no package dependency:
#
#     bash Scripts/docs.sh              # build the site into .build/docs/site
#     bash Scripts/docs.sh --check      # build it, then load it in headless Chromium (see below)
#     bash Scripts/docs.sh --serve      # build it, then serve it on http://127.0.0.1:8000/
#
# 1. `swift build` compiles the library's modules (with the test command's flags, so that the two
#    share a build); `swift-symbolgraph-extract` writes their symbol graphs. Kilo's graph takes in
#    the symbols of the modules that `import Kilo` re-exports (KiloEncoding, KiloTransport,
#    KiloCore), but not FoundationNetworking's, which it re-exports on Linux only.
# 2. Every public symbol declared in Sources/ must have a doc comment.
# 3. The catalog Sources/Kilo/Kilo.docc is copied, with the guides of Docs/ added as articles and
#    their links between guides rewritten as DocC links (the guides have one copy: Docs/).
# 4. `docc convert --warnings-as-errors` builds two static sites: Kilo's (with the guides) and
#    KiloEncoding's, for people who use that product alone, under .build/docs/site/Kilo and
#    .build/docs/site/KiloEncoding (hosting base paths /Kilo and /KiloEncoding).
#
# Any warning, or an undocumented public symbol, fails the script.
#
# --check serves the site with `python3 -m http.server` on 127.0.0.1, loads the Kilo landing page,
# WebServiceProxy's page, an article and KiloEncoding's QueryEncoder page in headless Chromium
# (`chromium`, from Debian's packages), takes screenshots (.build/docs/screenshots), and fails if
# a rendered page lacks the text it should show (a page the JavaScript app failed to render is
# empty). Set KILO_CHROMIUM to use another binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode=${1:-build}
case $mode in
build | --check | --serve) ;;
*)
    echo "usage: bash Scripts/docs.sh [--check | --serve]" >&2
    exit 2
    ;;
esac

out=.build/docs
rm -rf "$out"
mkdir -p "$out"

# The toolchain's docc: beside swift on Linux, through xcrun on macOS.
find_docc() {
    if command -v docc >/dev/null 2>&1; then
        command -v docc
    elif command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
        xcrun --find docc
    else
        local swift
        swift=$(command -v swift)
        swift=$(readlink -f "$swift" 2>/dev/null || echo "$swift")
        echo "$(dirname "$swift")/docc"
    fi
}
docc=$(find_docc)
if [ ! -x "$docc" ]; then
    echo "error: no docc next to the Swift toolchain ($docc)" >&2
    exit 1
fi

echo "==> Building the library's modules"
swift build -Xswiftc -warnings-as-errors --target Kilo
modules="$(swift build -Xswiftc -warnings-as-errors --show-bin-path)/Modules"
triple=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
if command -v xcrun >/dev/null 2>&1; then
    sdk=(-sdk "$(xcrun --show-sdk-path)")  # macOS: the SDK the modules were built against
fi

echo "==> Extracting symbol graphs"
extract() {
    local module=$1
    shift
    mkdir -p "$out/symbol-graphs/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$modules" -target "$triple" ${sdk[@]+"${sdk[@]}"} \
        -minimum-access-level public -skip-inherited-docs -output-dir "$out/symbol-graphs/$module" "$@"
}
extract Kilo -experimental-allowed-reexported-modules=KiloCore,KiloEncoding,KiloTransport
extract KiloEncoding

echo "==> Checking that every public symbol has a doc comment"
python3 - "$PWD/Sources" "$out/symbol-graphs/Kilo/Kilo.symbols.json" \
    "$out/symbol-graphs/KiloEncoding/KiloEncoding.symbols.json" <<'PYTHON'
import json, sys
from urllib.parse import unquote, urlparse
sources, graphs = sys.argv[1] + "/", sys.argv[2:]
missing = set()
for graph in graphs:
    for symbol in json.load(open(graph))["symbols"]:
        location = symbol.get("location")
        if not location:
            continue  # synthesized, or inherited from a protocol of the standard library
        path = unquote(urlparse(location["uri"]).path)
        if path.startswith(sources) and not symbol.get("docComment"):
            line = location["position"]["line"] + 1
            missing.add("%s:%d: %s" % (path[len(sources):], line, ".".join(symbol["pathComponents"])))
if missing:
    print("error: public symbols without a doc comment (STYLE section 3):", file=sys.stderr)
    for entry in sorted(missing):
        print("  Sources/" + entry, file=sys.stderr)
    sys.exit(1)
PYTHON

echo "==> Adding the guides of Docs/ to the catalog"
catalog="$out/catalogs/Kilo.docc"
mkdir -p "$out/catalogs"
cp -R Sources/Kilo/Kilo.docc "$catalog"
python3 - Docs "$catalog" <<'PYTHON'
# Copies each guide into the catalog as an article. A link to another guide, `[text](Other.md)` or
# `[text](Other.md#github-anchor)`, becomes `[text](<doc:Other>)` or `[text](<doc:Other#Heading>)`;
# any other relative link has no page in the site, and fails the build.
import os, re, sys

docs, catalog = sys.argv[1], sys.argv[2]
guides = sorted(name[:-3] for name in os.listdir(docs) if name.endswith(".md"))
texts = {guide: open(os.path.join(docs, guide + ".md"), encoding="utf-8").read() for guide in guides}

def headings(text):
    """Maps each heading's GitHub anchor to its DocC fragment."""
    anchors, seen, fenced = {}, {}, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"#{2,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        title = match.group(1)
        slug = re.sub(r"[^\w\- ]", "", title.lower().replace("`", "")).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors[slug if count == 0 else "%s-%d" % (slug, count)] = re.sub(r"\s+", "-", title.replace("`", ""))
    return anchors

anchors = {guide: headings(text) for guide, text in texts.items()}
errors = []

def rewrite(guide, match):
    text, target = match.group(1), match.group(2)
    if re.match(r"[a-z][a-z0-9+.-]*:", target):
        return match.group(0)  # an absolute URL
    path, _, anchor = target.partition("#")
    other = guide if path == "" else path[:-3] if path.endswith(".md") and "/" not in path else None
    if other not in texts:
        errors.append("%s.md: link to %s, which is not a guide in Docs/" % (guide, target))
        return match.group(0)
    if not anchor:
        return "[%s](<doc:%s>)" % (text, other)
    if anchor not in anchors[other]:
        errors.append("%s.md: link to %s, whose anchor is no heading of %s.md" % (guide, target, other))
        return match.group(0)
    return "[%s](<doc:%s#%s>)" % (text, other, anchors[other][anchor])

for guide, text in texts.items():
    parts = re.split(r"(^```.*?^```)", text, flags=re.S | re.M)  # leave code blocks alone
    for index in range(0, len(parts), 2):
        parts[index] = re.sub(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)", lambda m: rewrite(guide, m), parts[index])
    with open(os.path.join(catalog, guide + ".md"), "w", encoding="utf-8") as article:
        article.write("".join(parts))
if errors:
    print("\n".join("error: " + error for error in errors), file=sys.stderr)
    sys.exit(1)
PYTHON

echo "==> Building the sites with $docc"
mkdir -p "$out/site"
convert() {
    local name=$1
    shift
    "$docc" convert "$@" --additional-symbol-graph-dir "$out/symbol-graphs/$name" \
        --output-path "$out/site/$name" --hosting-base-path "$name" --transform-for-static-hosting \
        --fallback-display-name "$name" --fallback-bundle-identifier "org.kilo.$name" \
        --warnings-as-errors 2>&1 | tee "$out/$name-docc.log"
    if [ "${PIPESTATUS[0]}" -ne 0 ] || grep -q -E 'warning:|error:' "$out/$name-docc.log"; then
        echo "error: docc reported problems for $name (above)" >&2
        return 1
    fi
}
convert Kilo "$catalog"
convert KiloEncoding
cat >"$out/site/index.html" <<'HTML'
<!doctype html>
<meta charset="utf-8">
<title>Kilo documentation</title>
<ul>
  <li><a href="Kilo/documentation/kilo/">Kilo</a></li>
  <li><a href="KiloEncoding/documentation/kiloencoding/">KiloEncoding</a></li>
</ul>
HTML
echo "Built $out/site: serve it with  python3 -m http.server --bind 127.0.0.1 --directory $out/site"

if [ "$mode" = --serve ]; then
    echo "Serving on http://127.0.0.1:8000/Kilo/documentation/kilo/ (Ctrl-C stops)"
    exec python3 -m http.server 8000 --bind 127.0.0.1 --directory "$out/site"
fi
if [ "$mode" = --check ]; then
    exec bash Scripts/check-docs-in-browser.sh "$out/site" "$out/screenshots"
fi
