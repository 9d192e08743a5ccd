# shellcheck shell=bash
# Runs `swift test` in phases and tells their result: one line per phase, then a total line
# `N passed, N failed, N skipped`, which closes the output.
#
# Source this file from the repository root, then:
#
#     kilo_run_phase "root package" swift test -Xswiftc -warnings-as-errors
#     kilo_run_phase "NIO transport" swift test --package-path Transports/KiloAsyncHTTPClient
#     kilo_print_summary     # returns non-zero if any phase failed
#
# Each phase's whole output goes to a log file in $KILO_TEST_LOG_DIR: by default a folder of the
# run's own, .build/test-logs/<UTC time>[-filtered], so that no run overwrites another's logs (a
# filtered re-run, say, the full run's); .build/test-logs/latest links to the newest, and only the
# 20 newest are kept. With CI set, or KILO_TEST_VERBOSE=1, the output is also printed as it comes.
# When a phase fails, its failures' lines are printed at its end.
#
# Tests are counted from the lines `swift test` prints for each of them when it ends: Swift
# Testing's `✔ Test … passed after`, `✘ Test … failed after` and `➜ Test … skipped` (a
# parameterized test counts once, as in Swift Testing's own `Test run with N tests`), and XCTest's
# `Test Case '…' passed|failed|skipped`. Skipped means did not run. A test that cancels its own
# task on purpose ran, and Swift Testing says it `was cancelled after`: it counts as passed (a
# cancelled test that recorded an issue fails). Lines that start a test or a test case are never
# counted, whatever its name or arguments say ("blank lines skipped" was counted as a skip); Swift Testing's closing `Test run with N tests` sets its count of passed tests (N less
# those failed and skipped), since lines can be lost on the way, or run into each other. A phase that exits non-zero with no failed test counted (a build error, a crash, a
# run cut short) counts one failed test of its own.
#
# A phase that runs longer than $KILO_TEST_PHASE_TIMEOUT seconds (2400 by default; 0 for no limit)
# is stopped and counts as failed: a test that waits for ever, on a server that died say, then
# ends the run with its summary instead of holding it until CI's own limit. This needs
# coreutils' `timeout` (not on macOS by default, where phases run without a limit).
# Works with bash 3.2 (macOS) and later.

if [ -z "${KILO_TEST_LOG_DIR:-}" ]; then
    KILO_TEST_LOG_DIR=.build/test-logs/$(date -u +%Y%m%d-%H%M%S)${KILO_TEST_RUN_SUFFIX:-}
    _kilo_runs=.build/test-logs
    mkdir -p "$KILO_TEST_LOG_DIR"
    ln -sfn "$(basename "$KILO_TEST_LOG_DIR")" "$_kilo_runs/latest"
    # Keep the 20 newest runs' folders (their names sort by time).
    # shellcheck disable=SC2012
    ls -1d "$_kilo_runs"/2* 2>/dev/null | sort -r | tail -n +21 | while read -r old; do rm -rf "$old"; done
fi
KILO_TEST_PHASE_TIMEOUT=${KILO_TEST_PHASE_TIMEOUT:-2400}
KILO_PHASE_LINES=()
KILO_PASSED=0
KILO_FAILED=0
KILO_SKIPPED=0
KILO_PHASE_COUNT=0

# Prints "passed failed skipped summary-seen" for a `swift test` log.
_kilo_count_tests() {
    LC_ALL=C awk '
        # Swift Testing: one line per test when it ends. "Test run with N tests" closes the run;
        # N, skipped tests included, is the count: lines are lost on the way (seen under CI,
        # whose output goes through tee: whole suites missing) or run into each other (a test
        # counted twice), and the lines make up only the failed and skipped.
        / Test run with [0-9]+ tests? .*(passed|failed) after / {
            closed = 1
            for (i = 1; i < NF; i++) if ($i == "with") { total += $(i + 1); break }
            next
        }
        / Test .* recorded an issue/ { next }
        /^[^ ]+ Test case / || / started\.$/ { next }
        /^[^ ]+ Test .* passed after [0-9.]+ seconds/ { passed++; next }
        /^[^ ]+ Test .* failed after [0-9.]+ seconds/ { failed++; next }
        /^[^ ]+ Test .* was cancelled after [0-9.]+ seconds/ { passed++; next }
        /^[^ ]+ Test .* skipped(\.|: )/ { skipped++; next }
        # XCTest: one line per test case.
        /^Test Case .* passed \(/ { xcPassed++; next }
        /^Test Case .* failed \(/ { xcFailed++; next }
        /^Test Case .* skipped \(/ { xcSkipped++; next }
        END {
            if (closed && total >= failed + skipped) passed = total - failed - skipped
            printf "%d %d %d %d\n", passed + xcPassed, failed + xcFailed, skipped + xcSkipped, closed
        }
    ' "$1"
}

# Prints the lines of a failed phase's log that tell what failed, at most 150 of them.
_kilo_failure_lines() {
    LC_ALL=C awk '
        # A Swift Testing issue, and the detail lines (↳) under it.
        / Test .* recorded an issue/ { print; detail = 1; next }
        detail && /^[[:space:]]+[^[:space:]]/ && !/^[[:space:]]*$/ { print; next }
        { detail = 0 }
        /^[^ ]+ Test .* failed after / { print; next }
        /^[^ ]+ Suite .* failed after / { next }
        / Test run with .* failed after / { print; next }
        /^Test Case .* failed \(/ { print; next }
        /: error: |^error: |Fatal error|Program crashed|[Ss]ignal code|Exited with|Segmentation fault/ { print; next }
    ' "$1" | head -n 150
}

# Runs one phase: NAME, then the command and its arguments.
kilo_run_phase() {
    local name=$1
    shift
    KILO_PHASE_COUNT=$((KILO_PHASE_COUNT + 1))
    mkdir -p "$KILO_TEST_LOG_DIR"
    local slug
    slug=$(printf '%s' "$name" | tr -c 'A-Za-z0-9' '-' | tr -s '-' | sed 's/-$//')
    local log="$KILO_TEST_LOG_DIR/$KILO_PHASE_COUNT-$slug.log"
    printf '\n==> Phase %d, %s: %s\n    (output in %s)\n' "$KILO_PHASE_COUNT" "$name" "$*" "$log"
    local start status=0 limit=()
    if [ "$KILO_TEST_PHASE_TIMEOUT" != 0 ] && command -v timeout >/dev/null 2>&1; then
        # The signal reaches swift test's whole process group, the test process included.
        limit=(timeout --kill-after=30 "$KILO_TEST_PHASE_TIMEOUT")
    fi
    start=$(date +%s)
    if [ -n "${CI:-}" ] || [ "${KILO_TEST_VERBOSE:-0}" = 1 ]; then
        { ${limit[@]+"${limit[@]}"} "$@" 2>&1 && echo 0 >"$log.status" || echo $? >"$log.status"; } |
            tee "$log" || true
        status=$(cat "$log.status")
        rm -f "$log.status"
    else
        ${limit[@]+"${limit[@]}"} "$@" >"$log" 2>&1 || status=$?
    fi
    local seconds=$(($(date +%s) - start))

    local passed failed skipped closed note=""
    read -r passed failed skipped closed < <(_kilo_count_tests "$log")
    if [ ${#limit[@]} -gt 0 ] && { [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; }; then
        failed=$((failed + 1))
        note=" (stopped after $KILO_TEST_PHASE_TIMEOUT s, KILO_TEST_PHASE_TIMEOUT: a test hangs?)"
    elif [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
        failed=1
        if [ "$passed" -eq 0 ] && [ "$skipped" -eq 0 ]; then
            note=" (no test ran: exit status $status; a build error?)"
        else
            note=" (exit status $status before the run ended: a crash?)"
        fi
    elif [ "$status" -eq 0 ] && [ "$closed" -eq 0 ]; then
        note=" (no closing line from swift test)"
    fi
    KILO_PASSED=$((KILO_PASSED + passed))
    KILO_FAILED=$((KILO_FAILED + failed))
    KILO_SKIPPED=$((KILO_SKIPPED + skipped))

    local line
    line=$(printf '%s: %d passed, %d failed, %d skipped in %d s%s' \
        "$name" "$passed" "$failed" "$skipped" "$seconds" "$note")
    KILO_PHASE_LINES+=("$line|$status")
    printf '%s\n' "$line"
    if [ "$status" -ne 0 ]; then
        printf -- '--- what failed (whole output: %s) ---\n' "$log"
        local lines
        lines=$(_kilo_failure_lines "$log")
        if [ -n "$lines" ]; then
            printf '%s\n' "$lines"
        else
            printf '(no failure line; the output ends with:)\n'
            tail -n 20 "$log"
        fi
        printf -- '---\n'
    fi
    return 0
}

# Prints one line per phase and the total; returns 1 if any phase failed.
kilo_print_summary() {
    local entry line status result=0
    printf '\nSummary (whole outputs in %s):\n' "$KILO_TEST_LOG_DIR"
    for entry in ${KILO_PHASE_LINES[@]+"${KILO_PHASE_LINES[@]}"}; do
        status=${entry##*|}
        line=${entry%%|*}
        if [ "$status" -ne 0 ]; then
            result=1
            printf '  FAILED  %s\n' "$line"
        else
            printf '  ok      %s\n' "$line"
        fi
    done
    if [ "$KILO_FAILED" -gt 0 ]; then
        result=1
    fi
    printf '%d passed, %d failed, %d skipped\n' "$KILO_PASSED" "$KILO_FAILED" "$KILO_SKIPPED"
    return "$result"
}
