#!/usr/bin/env bash
# Checks that every file in Sources/KiloTransport/URLSession/Linux/ opens with what it works
# around: a `// Linux:` line naming the behaviour, then `Behaviour handled`, `Tests:` and
# `Remove …` lines (when, or with what, it can go), within its first 40 lines (CONTRIBUTING.md, "The Linux wing"). Exits
# non-zero, naming each file that lacks one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=0
for file in Sources/KiloTransport/URLSession/Linux/*.swift; do
    head=$(head -n 40 "$file")
    for part in '// Linux: ' '// Behaviour handled (' '// Tests: ' '// Remove '; do
        if ! grep -qF -- "$part" <<<"$head"; then
            echo "error: $file: its opening lacks '$part'" >&2
            missing=1
        fi
    done
done
[ "$missing" -eq 0 ] && echo "Every file of the Linux wing says what it handles, its test and when it can go."
exit "$missing"
