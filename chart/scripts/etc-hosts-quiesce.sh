# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# ouroboros pre-delete hook, etc-hosts mode, first step: delete the controller DaemonSet and wait until it
# is gone, so no node's controller can write its block again after the cleanup DaemonSet removed it.
# The delete is a foreground cascade: the DaemonSet object stays until all its pods are gone, so "gone"
# means no controller pod is left.
#
# Run after lib/common.sh, joined into one text by the chart (lib/common.sh says how, and where it runs).
# Exit 0: gone (or never there). Exit 1: still there at the deadline, or the delete failed, with a message
# saying what to do.
#
# Environment:
#   NAMESPACE, DAEMONSET  the etc-hosts controller DaemonSet
#   TIMEOUT_SECONDS       how long to wait for it to disappear (default 60)

require NAMESPACE DAEMONSET
seconds TIMEOUT_SECONDS 60

make_work

ds="$NAMESPACE/$DAEMONSET"
log "stopping the etc-hosts controller: deleting daemonset $ds (foreground: its pods go first)"
if ! kubectl delete daemonset "$DAEMONSET" --namespace "$NAMESPACE" --ignore-not-found --cascade=foreground \
  --wait=false >"$work/out" 2>"$work/err"; then
  show "$work/err"
  fail "could not delete daemonset $ds; its pods may write their block again after the cleanup." \
    "Delete it by hand (kubectl --namespace $NAMESPACE delete daemonset $DAEMONSET) and uninstall again."
fi
start_deadline "$TIMEOUT_SECONDS"
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
  if past_deadline; then
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
