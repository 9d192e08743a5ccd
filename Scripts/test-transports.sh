#!/usr/bin/env bash
# Runs the tests of Kilo's SwiftNIO transport package (Transports/KiloAsyncHTTPClient): its own unit
# tests and Kilo's integration suite sent through AsyncHTTPClientTransport, against local httpbin,
# sample-service and fault-server instances.
#
#     bash Scripts/test-transports.sh [extra swift test arguments, e.g. --filter RedirectTests]
#
# The package's first build takes several minutes (SwiftNIO and async-http-client).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source Scripts/servers.sh

kilo_start_test_servers

status=0
swift test -Xswiftc -warnings-as-errors --package-path Transports/KiloAsyncHTTPClient "$@" || status=$?
exit "$status"
