#!/bin/sh
# ouroboros pre-delete hook, etc-hosts mode, first step: delete the controller DaemonSet and wait until it
# is gone, so no node's controller can write its block again after the cleanup DaemonSet removed it.
# The delete is a foreground cascade: the DaemonSet object stays until all its pods are gone, so "gone"
# means no controller pod is left.
#
# Runs in the cleanup hook image (busybox sh, sed, awk, grep plus kubectl, in-cluster credentials). POSIX sh
# only. Every line it prints starts with [ouroboros-cleanup]. Exit 0: gone (or never there). Exit 1: still
# there at the deadline, or the delete failed, with a message saying what to do.
#
# Environment:
#   NAMESPACE, DAEMONSET  the etc-hosts controller DaemonSet
#   TIMEOUT_SECONDS       how long to wait for it to disappear (default 60)
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
require() {
  for name in "$@"; do
    eval "value=\${$name:-}"
    [ -n "$value" ] || fail "environment variable $name is empty or unset; the chart's hook Job must set it"
  done
}
is_count() {
  case "$1" in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac
}

require NAMESPACE DAEMONSET
TIMEOUT_SECONDS=${TIMEOUT_SECONDS:-60}
is_count "$TIMEOUT_SECONDS" || fail "TIMEOUT_SECONDS must be a whole number of seconds, got '$TIMEOUT_SECONDS'"

work=$(mktemp -d "${TMPDIR:-/tmp}/ouroboros-cleanup.XXXXXX")
trap 'rm -rf "$work"' EXIT

ds="$NAMESPACE/$DAEMONSET"
log "stopping the etc-hosts controller: deleting daemonset $ds (foreground: its pods go first)"
if ! kubectl delete daemonset "$DAEMONSET" --namespace "$NAMESPACE" --ignore-not-found --cascade=foreground \
  --wait=false >"$work/out" 2>"$work/err"; then
  show "$work/err"
  fail "could not delete daemonset $ds; its pods may write their block again after the cleanup." \
    "Delete it by hand (kubectl --namespace $NAMESPACE delete daemonset $DAEMONSET) and uninstall again."
fi
deadline=$(($(date +%s) + TIMEOUT_SECONDS))
announced=
while :; do
  if kubectl get daemonset "$DAEMONSET" --namespace "$NAMESPACE" --ignore-not-found --output name \
    >"$work/out" 2>"$work/err"; then
    if [ ! -s "$work/out" ]; then
      log "daemonset $ds is gone: no controller pod is left to write the hosts files"
      exit 0
    fi
  else
    show "$work/err"
  fi
  now=$(date +%s)
  if [ "$now" -ge "$deadline" ]; then
    fail "daemonset $ds is still there after ${TIMEOUT_SECONDS}s (pods still terminating, or a finalizer" \
      "holds it). See why with: kubectl --namespace $NAMESPACE get daemonset $DAEMONSET --output yaml;" \
      "kubectl --namespace $NAMESPACE get pods --output wide. Uninstall again once it is gone."
  fi
  if [ -z "$announced" ]; then
    log "waiting up to ${TIMEOUT_SECONDS}s for daemonset $ds and its pods to go"
    announced=yes
  fi
  sleep 1
done
