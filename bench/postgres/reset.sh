#!/bin/sh
# reset.sh: the dataset reset of a side: ${APP_DB:-app}_<side>, cloned from
# the side's template (template.sh). tailgate runs it before each side's
# first start, so a service that connects at start finds its database, and
# before every phase. The clone is a file copy: exact, about a second.
set -eu
side="${TAILGATE_SIDE:-run}"
db="${APP_DB:-app}_$side"
psql -X -q -v ON_ERROR_STOP=1 -d postgres \
	-c "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
	-c "CREATE DATABASE $db TEMPLATE ${APP_DB:-app}_tpl_$side"
