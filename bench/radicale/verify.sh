#!/usr/bin/env bash
# verify.sh: bench/radicale's dataset check: the side's calendar, as the
# service exports it, holds the seed's 300 events and nothing else.
set -euo pipefail
n=$(curl -fsS -u tg:tg "$TAILGATE_TARGET_URL/tg/team/" | grep -c '^UID:' || true)
[[ $n == 300 ]] || { echo "verify.sh: the calendar holds $n events, not the seed's 300" >&2; exit 1; }
