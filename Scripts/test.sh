#!/usr/bin/env bash
# Runs all of Kilo's tests against local httpbin, sample-service and fault-server instances: the
# root package's; its integration suite once more with proxies that own their sessions
# (KILO_TEST_SESSION=owned); then the SwiftNIO transport package's (Transports/KiloAsyncHTTPClient,
# whose first build takes several minutes), which runs the same integration suite through that
# transport.
#
#     bash Scripts/test.sh                                   # everything
#     bash Scripts/test.sh --filter QueryEncoderTests        # root package only, with these arguments
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source Scripts/servers.sh

kilo_start_test_servers

status=0
swift test -Xswiftc -warnings-as-errors "$@" || status=$?
if [ "$#" -eq 0 ]; then
    KILO_TEST_SESSION=owned swift test -Xswiftc -warnings-as-errors --filter KiloIntegrationTests || status=$?
    swift test -Xswiftc -warnings-as-errors --package-path Transports/KiloAsyncHTTPClient || status=$?
fi
exit "$status"
