# shellcheck shell=bash
# The seeded users' password (bench only; the users exist in no other place).
export NOTES_PASSWORD=${NOTES_PASSWORD:-bench-notes-pw}
