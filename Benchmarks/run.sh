#!/usr/bin/env bash
# Builds Kilo's benchmarks in release mode, starts the loopback server on a free port, runs
# kilo-bench against it with the arguments given, and stops the server, whatever happens.
#
#     bash Benchmarks/run.sh              # the full run, a few minutes (Docs/Performance.md)
#     bash Benchmarks/run.sh --quick      # a smoke run of a few seconds
#     bash Benchmarks/run.sh --help       # kilo-bench's options
#     bash Benchmarks/run.sh --large      # 1 GiB upload and download: kilo-bench-large (--large --help)
#     bash Benchmarks/run.sh --pin …      # the server on one CPU, the benchmark on the others
#                                         # (taskset): steadier figures at one request in flight
#
# --large and --pin, in either order, come before kilo-bench's own options.
# The first build compiles SwiftNIO and async-http-client: several minutes on two cores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# --large runs kilo-bench-large, the 1 GiB upload and download benchmark, instead.
# --pin keeps the server and the benchmark on CPUs of their own, so that the scheduler cannot
# move them onto each other's: the last CPU this script may use for the server, the rest for the
# benchmark.
benchmark=kilo-bench
pin=false
while [ $# -gt 0 ]; do
    case "$1" in
        --large) benchmark=kilo-bench-large ;;
        --pin) pin=true ;;
        *) break ;;
    esac
    shift
done

# The CPUs this script may run on (from a list such as "0-3,6"), one per line.
allowed_cpus() {
    local list range
    list=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
    for range in ${list//,/ }; do
        if [[ "$range" == *-* ]]; then
            seq "${range%-*}" "${range#*-}"
        else
            echo "$range"
        fi
    done
}

server_cpus=()
client_cpus=()
if [ "$pin" = true ]; then
    cpus=()
    if [ -r /proc/self/status ]; then
        mapfile -t cpus < <(allowed_cpus)
    fi
    if ! command -v taskset >/dev/null || [ "${#cpus[@]}" -lt 2 ]; then
        echo "error: --pin needs taskset (util-linux) and at least 2 CPUs this process may use" >&2
        exit 1
    fi
    last=$((${#cpus[@]} - 1))
    others=$(IFS=,; echo "${cpus[*]:0:$last}")
    server_cpus=(taskset -c "${cpus[$last]}")
    client_cpus=(taskset -c "$others")
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
