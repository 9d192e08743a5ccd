#!/usr/bin/env bash
# Builds Kilo's benchmarks in release mode, starts the loopback server on a free port, runs
# kilo-bench against it with the arguments given, and stops the server, whatever happens.
#
#     bash Benchmarks/run.sh              # the full run, a few minutes (Docs/Performance.md)
#     bash Benchmarks/run.sh --quick      # a smoke run of a few seconds
#     bash Benchmarks/run.sh --help       # kilo-bench's options
#     bash Benchmarks/run.sh --large      # 1 GiB upload and download: kilo-bench-large (--large --help)
#     bash Benchmarks/run.sh --pin …      # the server on the last CPU, the benchmark on the others
#                                         # (taskset): steadier figures at one request in flight
#
# --large and --pin come first, in that order, before kilo-bench's own options.
# The first build compiles SwiftNIO and async-http-client: several minutes on two cores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# --large (first) runs kilo-bench-large, the 1 GiB upload and download benchmark, instead.
benchmark=kilo-bench
if [ "${1:-}" = "--large" ]; then
    benchmark=kilo-bench-large
    shift
fi

# --pin keeps the server and the benchmark on CPUs of their own, so that the scheduler cannot
# move them onto each other's: one CPU (the last) for the server, the rest for the benchmark.
server_cpus=()
client_cpus=()
if [ "${1:-}" = "--pin" ]; then
    shift
    cpus=$(nproc)
    if ! command -v taskset >/dev/null || [ "$cpus" -lt 2 ]; then
        echo "error: --pin needs taskset (util-linux) and at least 2 CPUs" >&2
        exit 1
    fi
    server_cpus=(taskset -c "$((cpus - 1))")
    client_cpus=(taskset -c "0-$((cpus - 2))")
fi

swift build -c release --product kilo-bench-server
swift build -c release --product "$benchmark"
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

${server_cpus[@]+"${server_cpus[@]}"} "$bin/kilo-bench-server" 0 >"$port_file" &
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

if [ "$benchmark" = kilo-bench-large ]; then
    # Its work directory (the 1 GiB test file) goes with the server, however the run ends.
    work_dir=$(mktemp -d "${TMPDIR:-/tmp}/kilo-bench-large.XXXXXX")
    trap 'stop_server; rm -rf "$work_dir"' EXIT
    ${client_cpus[@]+"${client_cpus[@]}"} "$bin/kilo-bench-large" --port "$port" --dir "$work_dir" "$@"
else
    ${client_cpus[@]+"${client_cpus[@]}"} "$bin/kilo-bench" --port "$port" "$@"
fi
