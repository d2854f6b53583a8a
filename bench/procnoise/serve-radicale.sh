#!/usr/bin/env bash
# serve-radicale.sh PORT: the clean build of bench/radicale, as its serve.sh
# starts it; PYTHONHASHSEED is kept when the caller sets it.
exec "$(dirname "${BASH_SOURCE[0]}")/../radicale/serve.sh" clean "$1"
