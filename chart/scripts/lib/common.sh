# shellcheck shell=sh
# Shared by every ouroboros hook script. A hook Job does not run a script file: it runs `/bin/sh -c` with one
# text, this file first, then the other lib/*.sh files the script needs, then the script itself, each ending
# in a newline (ouroboros.hookScript in templates/_helpers.tpl; tests/chart/hook_script.ts builds the same
# text for the tests). This file runs nothing but `set -eu`: it only defines what the scripts use.
#
# The scripts run in the cleanup hook image (busybox sh, sed, awk, grep plus kubectl, in-cluster
# credentials): POSIX sh only. Every line they print starts with [ouroboros-cleanup].
set -eu

PREFIX='[ouroboros-cleanup]'
log() { printf '%s %s\n' "$PREFIX" "$*"; }
warn() { printf '%s WARNING: %s\n' "$PREFIX" "$*" >&2; }
fail() {
  printf '%s ERROR: %s\n' "$PREFIX" "$*" >&2
  exit 1
}
# Prints a file (kubectl's stderr) indented under the prefix.
show() { sed "s/^/$PREFIX   /" "$1" >&2; }

# require NAME...: fails unless every named environment variable is set and not empty.
require() {
  for name in "$@"; do
    eval "value=\${$name:-}"
    [ -n "$value" ] || fail "environment variable $name is empty or unset; the chart's hook Job must set it"
  done
}
is_count() {
  case "$1" in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac
}
# seconds NAME DEFAULT: sets NAME to DEFAULT when it is empty or unset, then fails unless it is a whole
# number of seconds.
seconds() {
  eval "value=\${$1:-$2}"
  is_count "$value" || fail "$1 must be a whole number of seconds, got '$value'"
  eval "$1=\$value"
}

# Makes the private work folder $work, removed when the script exits.
make_work() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/ouroboros-cleanup.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

# start_deadline SECONDS: the deadline is SECONDS from now. past_deadline: true once it has come.
start_deadline() { deadline=$(($(date +%s) + $1)); }
past_deadline() { [ "$(date +%s)" -ge "$deadline" ]; }
