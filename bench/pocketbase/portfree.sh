#!/usr/bin/env bash
# portfree.sh PORT...: exits 3, naming the holder, when a loopback port is
# already listened on. A benchmark that starts its own server must not be
# answered by another process that already holds the port.
set -euo pipefail
command -v ss >/dev/null || { echo "portfree.sh: ss (iproute2) not found: cannot tell whether a port is free" >&2; exit 2; }
status=0
for port in "$@"; do
	held=$(ss -Hltnp "sport = :$port" 2>/dev/null || true)
	if [[ -n $held ]]; then
		echo "port $port is already in use: $held" >&2
		status=3
	fi
done
exit $status
