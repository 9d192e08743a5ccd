#!/usr/bin/env bash
# Loads the documentation site that Scripts/docs.sh built in headless Chromium, as a reader would:
# served over HTTP on 127.0.0.1, each page rendered by DocC's JavaScript app. For each page it
# saves a screenshot and the rendered DOM, and fails if the DOM lacks the text the page must show
# (a page whose app failed to load or to find its data shows only an empty shell).
#
#     bash Scripts/check-docs-in-browser.sh [SITE [SCREENSHOTS]]
#
# SITE defaults to .build/docs/site, SCREENSHOTS to .build/docs/screenshots. Needs python3 and
# Chromium (Debian: apt-get install chromium); KILO_CHROMIUM names another binary.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
site=${1:-$root/.build/docs/site}
shots=${2:-$root/.build/docs/screenshots}
mkdir -p "$shots"
shots=$(cd "$shots" && pwd)
if [ ! -f "$site/Kilo/index.html" ]; then
    echo "error: no site in $site; run bash Scripts/docs.sh first" >&2
    exit 1
fi

chromium=${KILO_CHROMIUM:-}
if [ -z "$chromium" ]; then
    for candidate in chromium chromium-browser google-chrome; do
        if command -v "$candidate" >/dev/null 2>&1; then
            chromium=$(command -v "$candidate")
            break
        fi
    done
fi
if [ -z "$chromium" ]; then
    echo "error: no Chromium found (Debian: apt-get install chromium; or set KILO_CHROMIUM)" >&2
    exit 1
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >"$shots/http-server.log" 2>&1 &
server=$!
profile=$(mktemp -d "${TMPDIR:-/tmp}/kilo-chromium.XXXXXX")
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$profile"
}
trap cleanup EXIT

base="http://127.0.0.1:$port"
python3 - "$base/Kilo/index.html" <<'PYTHON'
import sys, time, urllib.request
deadline = time.monotonic() + 15
while True:
    try:
        urllib.request.urlopen(sys.argv[1], timeout=2).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("error: the HTTP server did not start")
        time.sleep(0.1)
PYTHON

# Flags for a container run as root: no sandbox, no GPU, no /dev/shm limit, a profile of its own.
# shellcheck disable=SC2054  # the comma in --window-size is the flag's own
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
    --no-default-browser-check --hide-scrollbars --user-data-dir="$profile"
    --virtual-time-budget=15000 --window-size=1280,1400)

failures=0
# check NAME PATH TEXT...: renders PATH, saves NAME.png and NAME.html, and requires every TEXT in
# the rendered page's text.
check() {
    local name=$1 path=$2
    shift 2
    local url="$base/$path"
    rm -f "$shots/$name.png"
    timeout 120 "$chromium" "${flags[@]}" --screenshot="$shots/$name.png" --dump-dom "$url" \
        >"$shots/$name.html" 2>"$shots/$name.log" || true
    if python3 - "$shots/$name.html" "$@" <<'PYTHON'; then
import html, re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
# The visible text: the DOM without scripts, styles and tags.
text = re.sub(r"(?s)<(script|style|noscript)\b.*?</\1>", " ", dom)
text = html.unescape(re.sub(r"<[^>]+>", " ", text))
text = re.sub(r"\s+", " ", text)
missing = [wanted for wanted in sys.argv[2:] if wanted not in text]
if missing:
    print("  missing: " + "; ".join(missing))
    print("  the page's text begins: " + text.strip()[:300])
    sys.exit(1)
PYTHON
        if [ -s "$shots/$name.png" ]; then
            echo "ok      $path ($shots/$name.png)"
        else
            echo "FAILED  $path: no screenshot ($shots/$name.log)"
            failures=$((failures + 1))
        fi
    else
        echo "FAILED  $path: the rendered page lacks its text ($shots/$name.html)"
        failures=$((failures + 1))
    fi
}

check kilo Kilo/documentation/kilo/ \
    "Kilo" "Call REST services in one line" "Essentials" "WebServiceProxy" "Getting started"
check webserviceproxy Kilo/documentation/kilo/webserviceproxy \
    "WebServiceProxy" "Calls the operations of a REST service." "invoke"
check getting-started Kilo/documentation/kilo/gettingstarted \
    "Getting started" "Create a proxy" "Every variant exists twice"
check queryencoder KiloEncoding/documentation/kiloencoding/queryencoder \
    "QueryEncoder" "Encodes arguments as a URL query string."

if [ "$failures" -gt 0 ]; then
    echo "error: $failures page(s) did not render as they should" >&2
    exit 1
fi
echo "The documentation renders in Chromium: screenshots in $shots"
