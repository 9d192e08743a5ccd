#!/usr/bin/env bash
# Runs the kilo-example executable against a local sample service.
#
#     bash Scripts/example.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source Scripts/servers.sh

kilo_install_python_deps
trap kilo_stop_servers EXIT
kilo_start_sample_service
echo "KILO_SAMPLE_URL=$KILO_SAMPLE_URL"

status=0
swift run kilo-example "$KILO_SAMPLE_URL" || status=$?
exit "$status"
