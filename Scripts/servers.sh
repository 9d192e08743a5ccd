# Starts and stops the local HTTP servers that Kilo's tests and examples talk to.
#
# Source this file from the repository root, then:
#
#     kilo_install_python_deps
#     trap kilo_stop_servers EXIT
#     kilo_start_httpbin          # exports KILO_HTTPBIN_URL
#     kilo_start_sample_service   # exports KILO_SAMPLE_URL
#     kilo_start_fault_server     # exports KILO_FAULT_URL, KILO_FAULT_TLS_URL, KILO_TRUSTED_TLS_URL
#                                 # and KILO_TRUSTED_TLS_CA
#     kilo_start_sse_server       # exports KILO_SSE_URL
#
# Only python3 is required; curl may be missing on a fresh machine. Works with bash 3.2 (macOS) and later.

KILO_SERVER_PIDS=()
KILO_SERVER_LOGS=()
KILO_SERVER_DIRS=()

# Installs httpbin, gunicorn, Flask, sse-starlette and uvicorn unless they are already importable.
kilo_install_python_deps() {
    if python3 -c 'import httpbin, gunicorn, flask, sse_starlette, uvicorn' >/dev/null 2>&1; then
        return 0
    fi
    if ! python3 -m pip --version >/dev/null 2>&1; then
        echo "error: python3 has no pip; install it first (Debian: apt-get install python3-pip)" >&2
        return 1
    fi
    echo "Installing Python test services from Service/requirements.txt" >&2
    # PIP_BREAK_SYSTEM_PACKAGES lets pip install into Debian's externally managed python3 on CI machines.
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --disable-pip-version-check \
        -r Service/requirements.txt
}

# Prints a TCP port on 127.0.0.1 that is free right now.
kilo_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Prints a free port on 127.0.0.1 that is none of the ports given: ports picked one after another
# are free at once but not yet bound, so the same one can come twice.
_kilo_free_port_other_than() {
    local candidate taken
    while candidate=$(kilo_free_port); do
        for taken in "$@"; do
            [ "$candidate" = "$taken" ] && continue 2
        done
        echo "$candidate"
        return 0
    done
    return 1
}

# Polls URL until it answers 200 or TIMEOUT seconds pass, giving up early if PID exits.
_kilo_wait_for_url() {
    local url=$1 pid=$2 timeout=$3
    python3 - "$url" "$pid" "$timeout" <<'PYTHON'
import os, sys, time, urllib.request
url, pid, deadline = sys.argv[1], int(sys.argv[2]), time.monotonic() + float(sys.argv[3])
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("server process %d exited" % pid)
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit("timed out waiting for " + url)
PYTHON
}

# Starts COMMAND... in the background, logging to a temp file, and waits for URL_PATH on PORT.
# Sets _KILO_STARTED_URL on success.
_kilo_start_server() {
    local name=$1 port=$2 path=$3
    shift 3
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/kilo-$name.XXXXXX")
    "$@" >"$log" 2>&1 &
    local pid=$!
    KILO_SERVER_PIDS+=("$pid")
    KILO_SERVER_LOGS+=("$log")
    _KILO_STARTED_URL="http://127.0.0.1:$port/"
    if ! _kilo_wait_for_url "$_KILO_STARTED_URL$path" "$pid" 30; then
        echo "error: $name did not start; its log ($log) follows:" >&2
        cat "$log" >&2
        return 1
    fi
}

# Starts Service/sample_service.py on a free port and exports KILO_SAMPLE_URL.
kilo_start_sample_service() {
    local port
    port=$(kilo_free_port) || return 1
    _kilo_start_server sample-service "$port" health \
        python3 Service/sample_service.py --port "$port" || return 1
    export KILO_SAMPLE_URL=$_KILO_STARTED_URL
}

# Starts Service/fault_server.py (standard library only) on three free ports: plain HTTP; TLS with a
# self-signed certificate, which no client should trust; and TLS with a certificate that a private CA
# made at start-up has signed, for clients that trust that CA. Exports KILO_FAULT_URL,
# KILO_FAULT_TLS_URL, KILO_TRUSTED_TLS_URL and KILO_TRUSTED_TLS_CA (the CA's certificate, in a temp
# directory that kilo_stop_servers removes).
kilo_start_fault_server() {
    local port tls_port trusted_port ca_dir
    port=$(kilo_free_port) || return 1
    tls_port=$(_kilo_free_port_other_than "$port") || return 1
    trusted_port=$(_kilo_free_port_other_than "$port" "$tls_port") || return 1
    ca_dir=$(mktemp -d "${TMPDIR:-/tmp}/kilo-test-ca.XXXXXX") || return 1
    KILO_SERVER_DIRS+=("$ca_dir")
    _kilo_start_server fault-server "$port" health \
        python3 Service/fault_server.py --port "$port" --tls-port "$tls_port" \
        --trusted-tls-port "$trusted_port" --ca-file "$ca_dir/ca.pem" || return 1
    export KILO_FAULT_URL=$_KILO_STARTED_URL
    export KILO_FAULT_TLS_URL="https://127.0.0.1:$tls_port/"
    export KILO_TRUSTED_TLS_URL="https://127.0.0.1:$trusted_port/"
    export KILO_TRUSTED_TLS_CA="$ca_dir/ca.pem"
}

# Starts Service/sse_server.py (sse-starlette under uvicorn) on a free port and exports KILO_SSE_URL.
kilo_start_sse_server() {
    local port
    port=$(kilo_free_port) || return 1
    _kilo_start_server sse-server "$port" health \
        python3 Service/sse_server.py --port "$port" || return 1
    export KILO_SSE_URL=$_KILO_STARTED_URL
}

# Starts httpbin under gunicorn on a free port and exports KILO_HTTPBIN_URL. Its keep-alive is
# 120 s, not gunicorn's 2 s: a pooled connection closed just as a client reuses it fails the
# request in a race no test means to run (the fault server's /stale-keep-alive runs it on purpose).
kilo_start_httpbin() {
    local port
    port=$(kilo_free_port) || return 1
    _kilo_start_server httpbin "$port" get \
        python3 -m gunicorn --bind "127.0.0.1:$port" --workers 2 --worker-class gthread \
        --threads 32 --keep-alive 120 --log-level warning httpbin:app || return 1
    export KILO_HTTPBIN_URL=$_KILO_STARTED_URL
}

# Prints the PIDs of PID's child processes (gunicorn's workers, say).
_kilo_child_pids() {
    if command -v pgrep >/dev/null 2>&1; then
        pgrep -P "$1" || true
    else
        python3 - "$1" <<'PYTHON'
import os, sys
for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
    try:
        with open("/proc/%s/stat" % entry) as stat:
            if entry.isdigit() and stat.read().rsplit(")", 1)[1].split()[1] == sys.argv[1]:
                print(entry)
    except (OSError, IndexError):
        pass
PYTHON
    fi
}

# Stops every server started above, with its child processes. Safe to call more than once.
# Each server gets SIGTERM and 10 seconds to exit cleanly (gunicorn stops its workers) before SIGKILL.
kilo_stop_servers() {
    local pid children tries
    for pid in ${KILO_SERVER_PIDS[@]+"${KILO_SERVER_PIDS[@]}"}; do
        children=$(_kilo_child_pids "$pid")
        kill -TERM "$pid" 2>/dev/null || true
        tries=0
        while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 100 ]; do
            sleep 0.1
            tries=$((tries + 1))
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "warning: server $pid ignored SIGTERM; killing it" >&2
            kill -KILL "$pid" $children 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
    done
    rm -f ${KILO_SERVER_LOGS[@]+"${KILO_SERVER_LOGS[@]}"}
    rm -rf ${KILO_SERVER_DIRS[@]+"${KILO_SERVER_DIRS[@]}"}
    KILO_SERVER_PIDS=()
    KILO_SERVER_LOGS=()
    KILO_SERVER_DIRS=()
}

# URLSession on Linux (swift-corelibs-foundation 6.3.1) trusts only the CA file that libcurl was
# built with: it reads no variable naming another (URLSessionCertificateAuthorityInfoFile is read on
# Android only), nor does libcurl (CURL_CA_BUNDLE and SSL_CERT_FILE are the curl tool's), and it asks
# no delegate about server trust. So, run as root on Linux, this sets KILO_TEST_CA_PREFIX to a
# command prefix that runs its command in a private mount namespace (`unshare`) where a copy of that
# file with KILO_TRUSTED_TLS_CA added is bind-mounted over it, with
# KILO_TRUSTED_TLS_CA_IN_CURL_BUNDLE=1 set. The file on disk and every other process see no change.
# Elsewhere the prefix is empty, says why, and URLSession's tests of KILO_TRUSTED_TLS_URL skip.
# Call it after kilo_start_fault_server.
KILO_TEST_CA_PREFIX=()
kilo_trusting_test_ca() {
    KILO_TEST_CA_PREFIX=()
    local curl_ca bundle prefix
    if [ "$(uname -s)" != Linux ] || [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
        echo "note: URLSession will not trust KILO_TRUSTED_TLS_CA: that needs Linux, root and unshare" >&2
        return 0
    fi
    if ! curl_ca=$(python3 - <<'PYTHON'
import ctypes, ctypes.util, sys
curl = ctypes.CDLL(ctypes.util.find_library("curl") or "libcurl.so.4")
curl.curl_easy_init.restype = ctypes.c_void_p
curl.curl_easy_getinfo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
path = ctypes.c_char_p()
if curl.curl_easy_getinfo(curl.curl_easy_init(), 0x100000 + 61, ctypes.byref(path)) != 0 or not path.value:
    sys.exit("libcurl has no built-in CA file (CURLINFO_CAINFO)")
print(path.value.decode())
PYTHON
    ) || [ ! -f "$curl_ca" ]; then
        echo "note: URLSession will not trust KILO_TRUSTED_TLS_CA: libcurl's CA file was not found" >&2
        return 0
    fi
    bundle="$(dirname "$KILO_TRUSTED_TLS_CA")/curl-ca-bundle.pem"
    cat "$curl_ca" "$KILO_TRUSTED_TLS_CA" >"$bundle" || return 1
    # shellcheck disable=SC2016 # expanded by the inner shell
    prefix=(unshare --mount --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
        kilo-test-ca "$bundle" "$curl_ca" env KILO_TRUSTED_TLS_CA_IN_CURL_BUNDLE=1)
    if ! "${prefix[@]}" true 2>/dev/null; then
        echo "note: URLSession will not trust KILO_TRUSTED_TLS_CA: unshare could not bind-mount $curl_ca" >&2
        return 0
    fi
    # shellcheck disable=SC2034 # Scripts/test.sh reads it
    KILO_TEST_CA_PREFIX=("${prefix[@]}")
}

# Installs the Python packages and starts every test server (httpbin, the sample service, the
# fault server, the SSE server), stopping them when the calling script exits; prints their URLs.
kilo_start_test_servers() {
    kilo_install_python_deps
    trap kilo_stop_servers EXIT
    kilo_start_httpbin
    kilo_start_sample_service
    kilo_start_fault_server
    kilo_start_sse_server
    echo "KILO_HTTPBIN_URL=$KILO_HTTPBIN_URL"
    echo "KILO_SAMPLE_URL=$KILO_SAMPLE_URL"
    echo "KILO_FAULT_URL=$KILO_FAULT_URL"
    echo "KILO_FAULT_TLS_URL=$KILO_FAULT_TLS_URL"
    echo "KILO_TRUSTED_TLS_URL=$KILO_TRUSTED_TLS_URL"
    echo "KILO_TRUSTED_TLS_CA=$KILO_TRUSTED_TLS_CA"
    echo "KILO_SSE_URL=$KILO_SSE_URL"
}
