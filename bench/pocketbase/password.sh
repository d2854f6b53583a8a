# shellcheck shell=bash
# Sourced by the PocketBase scripts: exports PB_BENCH_PASSWORD, the password
# of every seeded user, which the tailgate configs read with
# {{env "PB_BENCH_PASSWORD"}} and the app seeds the golden data dir with.
# Taken from the environment when set (as CI would pass a secret); else from
# bench/out/pocketbase/password, made once with a random value (mode 600).
# The golden data dir is seeded with the password of the build.sh that made
# it: change it and run build.sh again.
pb_password_file=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bench/out/pocketbase/password
if [[ -z ${PB_BENCH_PASSWORD:-} ]]; then
	if [[ ! -s $pb_password_file ]]; then
		mkdir -p "$(dirname "$pb_password_file")"
		(umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$pb_password_file")
	fi
	PB_BENCH_PASSWORD=$(cat "$pb_password_file")
fi
export PB_BENCH_PASSWORD
