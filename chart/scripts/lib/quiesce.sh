# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# Shared by the coredns and coredns-import hook scripts, after lib/common.sh: the quiesce function.
# It uses CONTROLLER_NAMESPACE, CONTROLLER_DEPLOYMENT and QUIESCE_SECONDS (checked by the script first) and
# the work folder $work (make_work).

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
  start_deadline "$QUIESCE_SECONDS"
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
    if past_deadline; then
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
