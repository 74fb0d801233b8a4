# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# ouroboros post-delete hook, external-dns mode: delete the records this release owns (DNSEndpoints for
# output=crd, annotated headless Services for output=service) so external-dns drops them upstream at once.
# Owned means carrying both labels app.kubernetes.io/managed-by=ouroboros and
# ouroboros.lexfrei.tech/instance=<release>; anything else in the namespace (another release's records,
# objects of other tools) is never touched. It runs after the controller is gone, so nothing recreates them.
#
# Run after lib/common.sh, joined into one text by the chart (lib/common.sh says how, and where it runs).
# Exit 0: deleted, or nothing to delete (also when the DNSEndpoint CRD is not installed). Exit 1: failed,
# with a message saying what to fix.
#
# Environment:
#   RECORDS_NAMESPACE  where the controller wrote its records
#   INSTANCE           the release name (the instance label's value)
#   OUTPUT             crd or service
#   OWNER              whose records: ouroboros (the controller's external-dns mode, the default) or kuberture
#                      (`ouroboros kuberture`: labels app.kubernetes.io/managed-by=kuberture and
#                      kuberture/instance=<instance>)
#   TIMEOUT_SECONDS    how long to wait for the deleted records to be gone (default 60)

require RECORDS_NAMESPACE INSTANCE OUTPUT
seconds TIMEOUT_SECONDS 60
# A label value: checked so it cannot widen or break the selector.
case "$INSTANCE" in
  *[!-._a-zA-Z0-9]* | [!a-zA-Z0-9]* | *[!a-zA-Z0-9])
    fail "INSTANCE '$INSTANCE' is not a valid label value (letters, digits, '-', '_', '.'; alphanumeric ends)"
    ;;
esac
[ "${#INSTANCE}" -le 63 ] || fail "INSTANCE '$INSTANCE' is longer than 63 characters, so it is not a label value"
case "$OUTPUT" in
  crd) resource=dnsendpoints.externaldns.k8s.io ;;
  service) resource=services ;;
  *) fail "OUTPUT must be crd or service, got '$OUTPUT'" ;;
esac
case "${OWNER:-ouroboros}" in
  ouroboros) selector="app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=$INSTANCE" ;;
  kuberture) selector="app.kubernetes.io/managed-by=kuberture,kuberture/instance=$INSTANCE" ;;
  *) fail "OWNER must be ouroboros or kuberture, got '$OWNER'" ;;
esac
by_hand="kubectl --namespace $RECORDS_NAMESPACE delete $resource --selector='$selector'"

make_work

if [ "$OUTPUT" = crd ]; then
  # Discovery of the one group version (readable by every authenticated user): 404 means the CRD is absent.
  if kubectl get --raw /apis/externaldns.k8s.io/v1alpha1 >"$work/out" 2>"$work/err"; then
    if ! grep -q '"dnsendpoints"' "$work/out"; then
      log "the DNSEndpoint CRD (dnsendpoints.externaldns.k8s.io) is not installed: nothing to clean"
      exit 0
    fi
  elif grep -q 'NotFound' "$work/err"; then
    log "the DNSEndpoint CRD (dnsendpoints.externaldns.k8s.io) is not installed: nothing to clean"
    exit 0
  else
    show "$work/err"
    fail "could not check whether the DNSEndpoint CRD is installed. Delete the records by hand: $by_hand"
  fi
fi

if ! kubectl get "$resource" --namespace "$RECORDS_NAMESPACE" --selector "$selector" --output name \
  >"$work/owned" 2>"$work/err"; then
  show "$work/err"
  fail "could not list the records of instance $INSTANCE in namespace $RECORDS_NAMESPACE. Delete them by hand: $by_hand"
fi
count=$(grep -c . "$work/owned" || true)
if [ "$count" -eq 0 ]; then
  log "no $resource owned by instance $INSTANCE in namespace $RECORDS_NAMESPACE: nothing to clean"
  exit 0
fi
log "deleting $count $resource owned by instance $INSTANCE in namespace $RECORDS_NAMESPACE:"
sed "s/^/$PREFIX   /" "$work/owned"
if ! kubectl delete "$resource" --namespace "$RECORDS_NAMESPACE" --selector "$selector" --ignore-not-found \
  --wait=false >"$work/out" 2>"$work/err"; then
  sed "s/^/$PREFIX   /" "$work/out"
  show "$work/err"
  fail "deleting the records failed; some may be left. Delete them by hand: $by_hand"
fi
sed "s/^/$PREFIX   /" "$work/out"
# Wait until the selector lists nothing (an object with finalizers stays until they have run). Listing is
# the permission the hook already has; kubectl's own --wait would need get and watch as well.
start_deadline "$TIMEOUT_SECONDS"
while :; do
  if kubectl get "$resource" --namespace "$RECORDS_NAMESPACE" --selector "$selector" --output name \
    >"$work/left" 2>"$work/err"; then
    [ -s "$work/left" ] || break
  else
    show "$work/err"
  fi
  if past_deadline; then
    sed "s/^/$PREFIX   still there: /" "$work/left" >&2
    fail "some records were not gone ${TIMEOUT_SECONDS}s after being deleted (finalizers?). See why with:" \
      "kubectl --namespace $RECORDS_NAMESPACE get $resource --selector '$selector' --output yaml"
  fi
  sleep 1
done
log "deleted the $resource owned by instance $INSTANCE; other objects in $RECORDS_NAMESPACE are untouched"
