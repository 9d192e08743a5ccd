#!/usr/bin/env bash
# Checks how Scripts/test-phases.sh counts a `swift test` log, on a made-up log with each kind of
# line: a test passes, fails, is skipped (with and without a reason), or cancels its own task on
# purpose (Swift Testing: "was cancelled"; it ran, so it passed); a test case's arguments, and a
# test's name, say "skipped" in lines that start them. Also checks that a run keeps its logs apart
# from the run before it.
#
#     bash Scripts/check-test-counts.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/swift-test.log" <<'LOG'
◇ Test run started.
◇ Test eventsArriveWithTheirFieldsAndCommentsAreSkipped() started.
◇ Test case passing 2 arguments rule → "blank lines skipped", stream → "a" to parses(rule:stream:) started.
✔ Test eventsArriveWithTheirFieldsAndCommentsAreSkipped() passed after 0.010 seconds.
✔ Test parses(rule:stream:) with 5 test cases passed after 0.020 seconds.
◇ Test aCancelledTaskIsNotRetried() started.
➜ Test aCancelledTaskIsNotRetried() was cancelled after 0.010 seconds.
➜ Test needsAServer() skipped: "needs KILO_SAMPLE_URL (run Scripts/test.sh)"
➜ Test onlyOnDarwin() skipped.
◇ Test breaks() started.
✘ Test breaks() recorded an issue at A.swift:3:5: Expectation failed: 1 == 2
✘ Test breaks() failed after 0.001 seconds with 1 issue.
✘ Test run with 6 tests in 2 suites failed after 0.030 seconds with 1 issue.
LOG
# shellcheck source=Scripts/test-phases.sh
KILO_TEST_LOG_DIR="$work/logs" source Scripts/test-phases.sh
counts=$(_kilo_count_tests "$work/swift-test.log")
if [ "$counts" != "3 1 2 1" ]; then
    echo "error: counted '$counts' (passed failed skipped closed); expected '3 1 2 1'" >&2
    exit 1
fi

# Two runs one after the other, the second filtered, each in a folder of its own.
(
    cd "$work"
    mkdir -p .build
    unset KILO_TEST_LOG_DIR
    for suffix in "" -filtered; do
        # shellcheck disable=SC2030
        (KILO_TEST_RUN_SUFFIX=$suffix && source "$OLDPWD/Scripts/test-phases.sh" &&
            kilo_run_phase "root package" cat swift-test.log >/dev/null)
        sleep 1
    done
    runs=$(find .build/test-logs -name '1-root-package.log' | wc -l)
    if [ "$runs" -ne 2 ] || [ ! -f .build/test-logs/latest/1-root-package.log ]; then
        echo "error: two runs left $runs logs (expected 2, and .build/test-logs/latest)" >&2
        exit 1
    fi
    case $(readlink .build/test-logs/latest) in
    *-filtered) ;;
    *)
        echo "error: .build/test-logs/latest is not the newest run" >&2
        exit 1
        ;;
    esac
)
echo "Test counts and logs: as expected."
