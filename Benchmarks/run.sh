#!/usr/bin/env bash
# Builds Kilo's benchmarks in release mode, starts the loopback server on a free port, runs
# kilo-bench against it with the arguments given, and stops the server, whatever happens.
#
#     bash Benchmarks/run.sh              # the full run, a few minutes (Docs/Performance.md)
#     bash Benchmarks/run.sh --quick      # a smoke run of a few seconds, for CI
#     bash Benchmarks/run.sh --help       # kilo-bench's options
#
# The first build compiles SwiftNIO and async-http-client: several minutes on two cores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

swift build -c release --product kilo-bench-server
swift build -c release --product kilo-bench
bin=$(swift build -c release --show-bin-path)

port_file=$(mktemp)
server_pid=
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -f "$port_file"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

"$bin/kilo-bench-server" 0 >"$port_file" &
server_pid=$!

port=
for _ in $(seq 1 100); do
    port=$(head -n 1 "$port_file" 2>/dev/null || true)
    [ -n "$port" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
        echo "error: kilo-bench-server exited before printing its port" >&2
        exit 1
    fi
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "error: kilo-bench-server printed no port within 10 s" >&2
    exit 1
fi

"$bin/kilo-bench" --port "$port" "$@"
