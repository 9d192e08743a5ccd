#!/usr/bin/env bash
# Runs all of Kilo's tests against local httpbin, sample-service and fault-server instances, in
# phases: the root package's tests; its integration suite once more with proxies that own their
# sessions (KILO_TEST_SESSION=owned); then the SwiftNIO transport package's
# (Transports/KiloAsyncHTTPClient, whose first build takes several minutes), which runs the same
# integration suite through that transport. Each package's memory checks run after it, alone.
# Run as root on Linux, the root package's integration phases run in a private mount namespace
# where URLSession trusts the fault server's private CA (kilo_trusting_test_ca in servers.sh);
# elsewhere its tests through that CA skip, saying so.
#
#     bash Scripts/test.sh                                   # everything
#     bash Scripts/test.sh --filter QueryEncoderTests        # root package only, with these arguments
#
# It ends with one line per phase and the total, `N passed, N failed, N skipped`, and exits
# non-zero if any test failed or any phase did not build, crashed, or ran past
# KILO_TEST_PHASE_TIMEOUT (2400 s; a test that hangs is then stopped). Each phase's whole output
# is in the run's own folder, .build/test-logs/<UTC time>[-filtered] (.build/test-logs/latest is
# the newest; printed as it comes too when CI or KILO_TEST_VERBOSE=1 is set); a failed phase's
# failures are printed when it ends.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source Scripts/servers.sh
# A filtered run keeps its logs apart from the full run's (see test-phases.sh).
if [ "$#" -gt 0 ]; then KILO_TEST_RUN_SUFFIX=-filtered; fi
source Scripts/test-phases.sh

kilo_start_test_servers
# The root package's integration phases run where URLSession trusts the fault server's private CA
# (see kilo_trusting_test_ca); the SwiftNIO package's trust it through its client's TLS configuration.
kilo_trusting_test_ca

# At most 16 tests run at once in a phase (Swift Testing's experimental setting): started all at
# once, hundreds of tests keep the process's threads busy for seconds, and a request's timeout or
# deadline can pass before it is even sent. A phase takes no longer for it.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16}

# Tests that watch this process's resident memory run in phases of their own, one at a time, so
# that no other test's allocations count against them. Their names end in `InBoundedMemory`.
memory=InBoundedMemory
if [ "$#" -gt 0 ]; then
    kilo_run_phase "root package" ${KILO_TEST_CA_PREFIX[@]+"${KILO_TEST_CA_PREFIX[@]}"} \
        swift test -Xswiftc -warnings-as-errors "$@"
else
    kilo_run_phase "root package" ${KILO_TEST_CA_PREFIX[@]+"${KILO_TEST_CA_PREFIX[@]}"} \
        swift test -Xswiftc -warnings-as-errors --skip "$memory"
    kilo_run_phase "integration suite, KILO_TEST_SESSION=owned" \
        ${KILO_TEST_CA_PREFIX[@]+"${KILO_TEST_CA_PREFIX[@]}"} \
        env KILO_TEST_SESSION=owned swift test -Xswiftc -warnings-as-errors --filter KiloIntegrationTests \
        --skip "$memory"
    kilo_run_phase "root package, memory checks one at a time" \
        swift test -Xswiftc -warnings-as-errors --filter "$memory" --no-parallel
    kilo_run_phase "SwiftNIO transport package" \
        swift test -Xswiftc -warnings-as-errors --package-path Transports/KiloAsyncHTTPClient --skip "$memory"
    kilo_run_phase "SwiftNIO transport package, memory checks one at a time" \
        swift test -Xswiftc -warnings-as-errors --package-path Transports/KiloAsyncHTTPClient \
        --filter "$memory" --no-parallel
fi

# Stop the servers first, so that nothing they print comes after the total.
kilo_stop_servers
kilo_print_summary
