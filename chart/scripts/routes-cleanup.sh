# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# ouroboros post-delete hook, routing.enabled (every mode): delete the route table ConfigMap the controller
# created (`--routes`), which Helm does not own and so would leave behind. First it waits until none of the
# controller's pods is left (Helm has deleted the Deployment or DaemonSet, but its pods may still be shutting
# down, and a live controller would create the ConfigMap again). Then it deletes the ConfigMap CONFIGMAP only
# when it carries both labels app.kubernetes.io/managed-by=ouroboros and ouroboros.lexfrei.tech/instance=
# <release>: one kubectl delete with that label selector and the field selector metadata.name=CONFIGMAP, so a
# ConfigMap of that name without them (another tool's, another release's) is never touched.
#
# Run after lib/common.sh, joined into one text by the chart (lib/common.sh says how, and where it runs).
# Exit 0: deleted, or nothing to delete, or left alone because it is not this release's. Exit 1: failed, with
# the command to run by hand.
#
# Environment:
#   NAMESPACE            the release namespace: the ConfigMap's and the controller pods'
#   CONFIGMAP            the route table ConfigMap (<fullname>-routes)
#   INSTANCE             the release name (the instance label's value)
#   CONTROLLER_SELECTOR  the controller pods' selector labels (a=b,c=d)
#   QUIESCE_SECONDS      how long to wait for the controller's pods to go (default 60); then it warns and goes on

require NAMESPACE CONFIGMAP INSTANCE CONTROLLER_SELECTOR
seconds QUIESCE_SECONDS 60
# A label value: checked so it cannot widen or break the selector.
case "$INSTANCE" in
  *[!-._a-zA-Z0-9]* | [!a-zA-Z0-9]* | *[!a-zA-Z0-9])
    fail "INSTANCE '$INSTANCE' is not a valid label value (letters, digits, '-', '_', '.'; alphanumeric ends)"
    ;;
esac
[ "${#INSTANCE}" -le 63 ] || fail "INSTANCE '$INSTANCE' is longer than 63 characters, so it is not a label value"
# A ConfigMap name (a DNS subdomain): checked so it cannot widen or break the field selector.
case "$CONFIGMAP" in
  *[!-.a-z0-9]* | [!a-z0-9]* | *[!a-z0-9])
    fail "CONFIGMAP '$CONFIGMAP' is not a ConfigMap name (lower-case letters, digits, '-', '.'; alphanumeric ends)"
    ;;
esac
selector="app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=$INSTANCE"
cm="$NAMESPACE/$CONFIGMAP"
by_hand="kubectl --namespace $NAMESPACE delete configmap $CONFIGMAP"

make_work

# Wait until the controller's pods are gone (listed by its selector labels; the workload itself is already
# deleted). Trouble here is reported and the cleanup goes on.
start_deadline "$QUIESCE_SECONDS"
announced=
while :; do
  if kubectl get pods --namespace "$NAMESPACE" --selector "$CONTROLLER_SELECTOR" --output name \
    >"$work/pods" 2>"$work/err"; then
    if [ ! -s "$work/pods" ]; then
      log "no controller pod is left to write the route table"
      break
    fi
    count=$(grep -c . "$work/pods" || :)
    pods="$count pod(s) left: $(sed 's|^pod/||' "$work/pods" | tr '\n' ' ' | sed 's/ $//')"
  else
    pods="pods unreadable: $(head -n 1 "$work/err")"
  fi
  if past_deadline; then
    warn "the controller's pods did not stop within ${QUIESCE_SECONDS}s ($pods); going on anyway. If one is" \
      "still running it may create configmap $cm again: once it is gone, check with" \
      "kubectl --namespace $NAMESPACE get configmap $CONFIGMAP, and delete it with $by_hand"
    break
  fi
  if [ -z "$announced" ]; then
    log "waiting up to ${QUIESCE_SECONDS}s for the controller's pods to stop ($pods)"
    announced=yes
  fi
  sleep 1
done

if ! kubectl delete configmap --namespace "$NAMESPACE" --field-selector "metadata.name=$CONFIGMAP" \
  --selector "$selector" --ignore-not-found --wait=false >"$work/out" 2>"$work/err"; then
  sed "s/^/$PREFIX   /" "$work/out"
  show "$work/err"
  fail "deleting configmap $cm failed. Delete it by hand once you have checked it is this release's" \
    "(labels $selector): $by_hand"
fi
# kubectl says "No resources found" when nothing matched, and "... deleted ..." for what it deleted.
if grep -q 'deleted' "$work/out"; then
  sed "s/^/$PREFIX   /" "$work/out"
  log "deleted the route table configmap $cm"
  exit 0
fi
# Nothing matched both selectors: absent, or there but not this release's (listed by name: the Role's only read).
if ! kubectl get configmap --namespace "$NAMESPACE" --field-selector "metadata.name=$CONFIGMAP" --output name \
  >"$work/out" 2>"$work/err"; then
  show "$work/err"
  warn "could not tell whether configmap $cm is there; none of this release's was found, nothing was deleted"
elif [ -s "$work/out" ]; then
  log "configmap $cm does not carry this release's labels ($selector): not this release's, left alone"
else
  log "no route table configmap $cm: nothing to clean"
fi
