#!/usr/bin/env bash
# verify.sh: the dataset check of bench/miniflux's configs — the side's
# database holds exactly the fixed dataset (counts and read states), and the
# enclosures index is there unless the side's template is the one without it.
source "$(dirname "$0")/lib.sh"
db=miniflux_${TAILGATE_SIDE:-run}
got=$(psql_q -d "$db" -c "SELECT json_build_object(
	'users', (SELECT count(*) FROM users WHERE username LIKE 'bench%'),
	'feeds', (SELECT count(*) FROM feeds),
	'entries', (SELECT count(*) FROM entries),
	'unread', (SELECT count(*) FROM entries WHERE status = 'unread'),
	'enclosures', (SELECT count(*) FROM enclosures),
	'api_keys', (SELECT count(*) FROM api_keys))")
want='{"users" : 4, "feeds" : 100, "entries" : 8000, "unread" : 4000, "enclosures" : 48000, "api_keys" : 4}'
if [ "$got" != "$want" ]; then
	echo "verify.sh: $db holds $got, want $want" >&2
	exit 1
fi
echo "$db: $got"
