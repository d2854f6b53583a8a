#!/usr/bin/env bash
# reset.sh: bench/radicale's dataset reset: removes the events the
# lifecycles wrote (tg-*.ics, a lifecycle cut by the end of a run leaves
# its own) and their cache and history entries from the side's copy, which
# leaves the seed's 300 events (serve.sh's copy in /dev/shm). Before the side's first start there is no
# copy yet: serve.sh makes it.
set -euo pipefail
cal=/dev/shm/radicale-${TAILGATE_SIDE:-run}/collection-root/tg/team
[[ -d $cal ]] || exit 0
rm -f "$cal"/tg-*.ics "$cal"/.Radicale.cache/*/tg-*.ics
