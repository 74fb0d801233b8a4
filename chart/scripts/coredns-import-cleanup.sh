# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# ouroboros pre-delete hook, coredns-import mode: stop the controller, then remove this release's key from
# the import ConfigMap with a JSON merge patch ({"data":{"<key>":null}}). Other keys are not touched, and a
# merge patch needs no resourceVersion: it cannot overwrite a concurrent change to another key.
#
# Run after lib/common.sh and lib/quiesce.sh, joined into one text by the chart (lib/common.sh says how, and
# where it runs). Exit 0: the key was removed, or there was nothing to remove. Exit 1: failed, with a message
# saying what to fix.
#
# Environment:
#   CONTROLLER_NAMESPACE, CONTROLLER_DEPLOYMENT  the controller to scale to 0 first
#   CONTROLLER_SELECTOR  the label selector of its pods (a=b,c=d); the script waits until none is left
#   QUIESCE_SECONDS    how long to wait for its pods to stop (default 60; on timeout: warn and go on)
#   TARGET_NAMESPACE, TARGET_CONFIGMAP, TARGET_KEY  the import ConfigMap and this release's key in it

require CONTROLLER_NAMESPACE CONTROLLER_DEPLOYMENT CONTROLLER_SELECTOR TARGET_NAMESPACE TARGET_CONFIGMAP TARGET_KEY
seconds QUIESCE_SECONDS 60
# A ConfigMap key is letters, digits, '-', '_' and '.': checked so it can go into JSON as is.
case "$TARGET_KEY" in
  *[!-._a-zA-Z0-9]*) fail "TARGET_KEY '$TARGET_KEY' is not a valid ConfigMap key (letters, digits, '-', '_', '.')" ;;
esac

make_work

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
