#!/bin/sh
# ouroboros pre-delete hook, coredns-import mode: stop the controller, then remove this release's key from
# the import ConfigMap with a JSON merge patch ({"data":{"<key>":null}}). Other keys are not touched, and a
# merge patch needs no resourceVersion: it cannot overwrite a concurrent change to another key.
#
# Runs in the cleanup hook image (busybox sh, sed, awk, grep plus kubectl, in-cluster credentials). POSIX sh
# only. Every line it prints starts with [ouroboros-cleanup]. Exit 0: the key was removed, or there was
# nothing to remove. Exit 1: failed, with a message saying what to fix.
#
# Environment:
#   CONTROLLER_NAMESPACE, CONTROLLER_DEPLOYMENT  the controller to scale to 0 first
#   QUIESCE_SECONDS    how long to wait for its pods to stop (default 60; on timeout: warn and go on)
#   TARGET_NAMESPACE, TARGET_CONFIGMAP, TARGET_KEY  the import ConfigMap and this release's key in it
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

require CONTROLLER_NAMESPACE CONTROLLER_DEPLOYMENT TARGET_NAMESPACE TARGET_CONFIGMAP TARGET_KEY
QUIESCE_SECONDS=${QUIESCE_SECONDS:-60}
is_count "$QUIESCE_SECONDS" || fail "QUIESCE_SECONDS must be a whole number of seconds, got '$QUIESCE_SECONDS'"
# A ConfigMap key is letters, digits, '-', '_' and '.': checked so it can go into JSON as is.
case "$TARGET_KEY" in
  *[!-._a-zA-Z0-9]*) fail "TARGET_KEY '$TARGET_KEY' is not a valid ConfigMap key (letters, digits, '-', '_', '.')" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/ouroboros-cleanup.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Scale the controller to 0 and wait until its pods are gone, so it cannot write the block again after we
# remove it. Trouble here is reported and the cleanup goes on: the block is removed either way.
quiesce() {
  log "quiescing the controller: scaling deployment $CONTROLLER_NAMESPACE/$CONTROLLER_DEPLOYMENT to 0 replicas"
  if kubectl scale deployment "$CONTROLLER_DEPLOYMENT" --namespace "$CONTROLLER_NAMESPACE" --replicas=0 \
    >"$work/out" 2>"$work/err"; then
    :
  elif grep -q 'NotFound' "$work/err"; then
    log "deployment $CONTROLLER_NAMESPACE/$CONTROLLER_DEPLOYMENT not found: nothing to quiesce"
    return 0
  else
    warn "could not scale deployment $CONTROLLER_NAMESPACE/$CONTROLLER_DEPLOYMENT to 0 (going on; a running" \
      "controller may write its block again):"
    show "$work/err"
    return 0
  fi
  deadline=$(($(date +%s) + QUIESCE_SECONDS))
  announced=
  while :; do
    state=
    if kubectl get deployment "$CONTROLLER_DEPLOYMENT" --namespace "$CONTROLLER_NAMESPACE" --ignore-not-found \
      --output 'jsonpath={.status.replicas}/{.status.terminatingReplicas}' >"$work/replicas" 2>"$work/err"; then
      state=$(cat "$work/replicas")
      case "$state" in
        '' | / | 0/ | /0 | 0/0)
          log "controller quiesced: no pods left"
          return 0
          ;;
      esac
    fi
    replicas=${state%%/*}
    terminating=${state#*/}
    pods="replicas ${replicas:-0}, terminating ${terminating:-0}"
    [ -n "$state" ] || pods="status unreadable"
    if [ "$(date +%s)" -ge "$deadline" ]; then
      warn "the controller did not stop within ${QUIESCE_SECONDS}s ($pods);" \
        "going on anyway. If it is still running it may write its block again: check with" \
        "kubectl --namespace $CONTROLLER_NAMESPACE get deployment $CONTROLLER_DEPLOYMENT"
      return 0
    fi
    if [ -z "$announced" ]; then
      log "waiting up to ${QUIESCE_SECONDS}s for the controller's pods to stop ($pods)"
      announced=yes
    fi
    sleep 1
  done
}

remove_key() {
  cm="$TARGET_NAMESPACE/$TARGET_CONFIGMAP"
  if ! kubectl get configmap "$TARGET_CONFIGMAP" --namespace "$TARGET_NAMESPACE" --ignore-not-found \
    --output name >"$work/out" 2>"$work/err"; then
    show "$work/err"
    fail "could not read configmap $cm; this release's key $TARGET_KEY may still be there. Remove it by hand:" \
      "kubectl --namespace $TARGET_NAMESPACE patch configmap $TARGET_CONFIGMAP --type=merge" \
      "--patch '{\"data\":{\"$TARGET_KEY\":null}}'"
  fi
  if [ ! -s "$work/out" ]; then
    log "configmap $cm not found: nothing to clean"
    return 0
  fi
  if ! kubectl patch configmap "$TARGET_CONFIGMAP" --namespace "$TARGET_NAMESPACE" --type=merge \
    --patch "{\"data\":{\"$TARGET_KEY\":null}}" >"$work/out" 2>"$work/err"; then
    show "$work/err"
    fail "could not remove key $TARGET_KEY from configmap $cm. Remove it by hand:" \
      "kubectl --namespace $TARGET_NAMESPACE patch configmap $TARGET_CONFIGMAP --type=merge" \
      "--patch '{\"data\":{\"$TARGET_KEY\":null}}'"
  fi
  if grep -q 'no change' "$work/out"; then
    log "configmap $cm has no key $TARGET_KEY: nothing to clean"
  else
    log "removed key $TARGET_KEY from configmap $cm; its other keys are unchanged"
  fi
}

quiesce
remove_key
