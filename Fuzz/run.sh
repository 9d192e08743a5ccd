#!/usr/bin/env bash
# Builds Kilo's fuzzers with libFuzzer and AddressSanitizer, then fuzzes for a while.
#
#     bash Fuzz/run.sh [seconds]            fuzz each target for this long (default 30)
#     bash Fuzz/run.sh TARGET [seconds]     fuzz one: encoders (KiloEncoding's builders),
#                                           responses (what Kilo makes of a server's bodies) or
#                                           origins (where a Location or a path sends credentials)
#     bash Fuzz/run.sh TARGET FILE...       run these inputs once each (reproduce a crash)
#
# Each target fuzzes a copy of Fuzz/<Target>/corpus. Exits non-zero if an input breaks a property
# or crashes. See Fuzz/README.md.
set -euo pipefail
shopt -s inherit_errexit            # a failed build inside "$(build_fuzzer …)" stops the script
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
    sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit 2
}

targets=(encoders responses origins)
seconds=30
inputs=()
if [[ $# -gt 0 && ! $1 =~ ^[0-9]+$ ]]; then
    case $1 in
    encoders | responses | origins) targets=("$1") ;;
    *) usage ;;
    esac
    shift
fi
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    # libFuzzer takes 0 seconds as no limit.
    ((10#$1 > 0)) || { echo "error: fuzz for at least 1 second" >&2; usage; }
    seconds=$((10#$1))
    shift
    (($# == 0)) || { echo "error: give seconds to fuzz, or inputs to run, not both" >&2; usage; }
fi
for input in "$@"; do
    # A folder would be fuzzed as a corpus, without end, and grown.
    [[ -f $input ]] || { echo "error: $input is not a file" >&2; usage; }
    inputs+=("$(realpath "$input")")
done
if ((${#inputs[@]})) && ((${#targets[@]} != 1)); then
    echo "error: name the target the inputs are for (encoders, responses or origins)" >&2
    usage
fi
cd "$here"

build=.build                     # ignored by the root .gitignore
flags=(-swift-version 6 -O -g -sanitize=fuzzer,address -parse-as-library
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility)

# Compiles a library module of Kilo's from its sources, so that a harness sees only its API;
# `-package-name Kilo`, as SwiftPM gives, for the declarations Kilo's modules share.
build_module() {
    local module=$1 sources
    mapfile -t sources < <(find "../Sources/$module" -name '*.swift' | sort)
    swiftc "${flags[@]}" -module-name "$module" -package-name Kilo -I "$build/module" -emit-library -static \
        -emit-module -emit-module-path "$build/module/$module.swiftmodule" \
        -o "$build/lib$module.a" "${sources[@]}"
}

# Builds a target's fuzzer if a source or this script is newer than it; prints its path.
build_fuzzer() {
    local target=$1 name harness_module modules
    case $target in
    encoders) name=kilo-encoding-fuzzer harness_module=KiloEncodingFuzzer modules=(KiloEncoding) ;;
    responses) name=kilo-response-fuzzer harness_module=KiloResponseFuzzer modules=(KiloTransport KiloCore) ;;
    origins) name=kilo-origin-fuzzer harness_module=KiloOriginFuzzer modules=(KiloEncoding KiloTransport KiloCore Kilo) ;;
    esac
    local fuzzer=$build/$name sources=() module
    for module in "${modules[@]}"; do
        mapfile -t -O "${#sources[@]}" sources < <(find "../Sources/$module" -name '*.swift')
    done
    local harness=(${target^}/Sources/*.swift)
    local needs_build=0 source
    [[ -x $fuzzer ]] || needs_build=1
    for source in "${sources[@]}" "${harness[@]}" "${BASH_SOURCE[0]}"; do
        [[ $source -nt $fuzzer ]] && needs_build=1
    done
    if ((needs_build)); then
        echo "Building $fuzzer" >&2
        mkdir -p "$build/module"
        local libraries=() library stale
        for module in "${modules[@]}"; do
            # A module is built again when it changed, or one it depends on (listed before it) was
            # built after it, here or by another harness: with -O its code may be inlined.
            stale=0
            [[ -f $build/lib$module.a &&
                -z $(find "../Sources/$module" "${BASH_SOURCE[0]}" -newer "$build/lib$module.a") ]] || stale=1
            for library in "${libraries[@]}"; do
                [[ $library -nt $build/lib$module.a ]] && stale=1
            done
            ((stale)) && build_module "$module" >&2
            libraries+=("$build/lib$module.a")
        done
        swiftc "${flags[@]}" -warnings-as-errors -module-name "$harness_module" \
            -I "$build/module" -use-ld=lld "${harness[@]}" "${libraries[@]}" -o "$fuzzer" >&2
    fi
    echo "$fuzzer"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}   # the Swift runtime's caches look like leaks
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}   # libFuzzer and ASan report crashes themselves
libfuzzer_flags=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -detect_leaks=0)

if ((${#inputs[@]})); then
    fuzzer=$(build_fuzzer "${targets[0]}")
    exec "$fuzzer" "${libfuzzer_flags[@]}" "${inputs[@]}"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/artifacts"
status=0
for target in "${targets[@]}"; do
    fuzzer=$(build_fuzzer "$target")
    echo "Fuzzing $target for $seconds s"
    cp -R "${target^}/corpus" "$work/$target"      # libFuzzer adds to the corpus it runs on; never to ours
    target_status=0
    "$fuzzer" "${libfuzzer_flags[@]}" -max_total_time="$seconds" -artifact_prefix="$build/artifacts/$target-" \
        "$work/$target" 2>&1 | tee "$work/$target.log" |
        grep --line-buffered -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^"|^###### |NEW_FUNC' ||
        target_status=${PIPESTATUS[0]}
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$target.log" | tail -n 1)
    echo "Executions ($target): ${runs:-unknown} (${rate:-?} per second; limit ${seconds} s)"
    if ((target_status != 0)); then
        status=$target_status
        echo "FAILED: $target (libFuzzer exit status $target_status). Reproduce with:" >&2
        sed -n "s|.*Test unit written to $build/|    bash Fuzz/run.sh $target Fuzz/$build/|p" "$work/$target.log" >&2
    fi
done
exit "$status"
