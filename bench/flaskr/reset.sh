#!/usr/bin/env bash
# reset.sh: empties the side's flaskr database (its users and posts), as
# the tutorial's own `flask init-db` does; bench/flaskr's dataset reset.
# Before the side's first start there is no copy yet: serve.sh makes it empty.
set -euo pipefail
side=$(dirname "${BASH_SOURCE[0]}")/../out/flaskr/side-${TAILGATE_SIDE:-run}
[[ -d $side ]] || exit 0
cd "$side" && exec flask --app flaskr init-db
