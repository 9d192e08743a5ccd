#!/usr/bin/env bash
# Builds the KiloEncoding fuzzer with libFuzzer and AddressSanitizer, then fuzzes for a while.
#
#     bash Fuzz/run.sh [seconds]        fuzz for this long (default 60) on a copy of Fuzz/corpus
#     bash Fuzz/run.sh FILE...          run these inputs once each (reproduce a crash)
#
# Exits non-zero if an input breaks a property or crashes. See Fuzz/README.md.
set -euo pipefail
inputs=()
if [[ $# -gt 0 && ! $1 =~ ^[0-9]+$ ]]; then
    for input in "$@"; do inputs+=("$(realpath "$input")"); done
fi
cd "$(dirname "${BASH_SOURCE[0]}")"

build=.build                     # ignored by the root .gitignore
fuzzer=$build/kilo-encoding-fuzzer
library_sources=(../Sources/KiloEncoding/*.swift)
harness_sources=(Sources/*.swift)
flags=(-swift-version 6 -O -g -sanitize=fuzzer,address -parse-as-library
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility)

# Rebuild only when a source or this script is newer than the fuzzer.
needs_build=0
[[ -x $fuzzer ]] || needs_build=1
for source in "${library_sources[@]}" "${harness_sources[@]}" "${BASH_SOURCE[0]}"; do
    [[ $source -nt $fuzzer ]] && needs_build=1
done
if ((needs_build)); then
    echo "Building $fuzzer"
    mkdir -p "$build/module"
    # KiloEncoding as its own module, so the harness sees only its public API.
    # -package-name: KiloEncoding shares a few `package` declarations with Kilo's other modules.
    swiftc "${flags[@]}" -module-name KiloEncoding -package-name Kilo -emit-library -static \
        -emit-module -emit-module-path "$build/module/KiloEncoding.swiftmodule" \
        -o "$build/libKiloEncoding.a" "${library_sources[@]}"
    swiftc "${flags[@]}" -warnings-as-errors -module-name KiloEncodingFuzzer -I "$build/module" \
        -use-ld=lld "${harness_sources[@]}" "$build/libKiloEncoding.a" -o "$fuzzer"
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}   # the Swift runtime's caches look like leaks
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}   # libFuzzer and ASan report crashes themselves
libfuzzer_flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

if ((${#inputs[@]})); then
    exec "$fuzzer" "${libfuzzer_flags[@]}" "${inputs[@]}"
fi

seconds=${1:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R corpus "$work/corpus"      # libFuzzer adds to the corpus it runs on; never to ours
mkdir -p "$build/artifacts"

status=0
"$fuzzer" "${libfuzzer_flags[@]}" -max_total_time="$seconds" -artifact_prefix="$build/artifacts/" \
    "$work/corpus" 2>&1 | tee "$work/log" | grep --line-buffered -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^"|^###### |NEW_FUNC' || status=${PIPESTATUS[0]}

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
echo "Executions: ${runs:-unknown} (${rate:-?} per second; limit ${seconds} s)"
if ((status != 0)); then
    echo "FAILED (libFuzzer exit status $status). Reproduce with:" >&2
    sed -n "s|.*Test unit written to $build/|    bash Fuzz/run.sh Fuzz/$build/|p" "$work/log" >&2
fi
exit "$status"
