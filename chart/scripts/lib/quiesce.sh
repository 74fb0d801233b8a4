# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# Shared by the coredns and coredns-import hook scripts, after lib/common.sh: the quiesce function.
# It uses CONTROLLER_NAMESPACE, CONTROLLER_DEPLOYMENT, CONTROLLER_SELECTOR and QUIESCE_SECONDS (checked by
# the script first) and the work folder $work (make_work).

# Scale the controller to 0 and wait until none of its pods is left, so it cannot write the block again
# after we remove it. The pods themselves are what counts, listed by the controller's selector labels
# (CONTROLLER_SELECTOR): the Deployment's .status.replicas never counts pods that are shutting down, and
# .status.terminatingReplicas exists only from Kubernetes 1.33 on, so a terminating controller would look
# gone there. Trouble here is reported and the cleanup goes on: the block is removed either way.
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
    if kubectl get pods --namespace "$CONTROLLER_NAMESPACE" --selector "$CONTROLLER_SELECTOR" --output name \
      >"$work/pods" 2>"$work/err"; then
      if [ ! -s "$work/pods" ]; then
        log "controller quiesced: no pods left"
        return 0
      fi
      count=$(grep -c . "$work/pods" || :)
      pods="$count pod(s) left: $(sed 's|^pod/||' "$work/pods" | tr '\n' ' ' | sed 's/ $//')"
    else
      pods="pods unreadable: $(head -n 1 "$work/err")"
    fi
    if past_deadline; then
      warn "the controller did not stop within ${QUIESCE_SECONDS}s ($pods);" \
        "going on anyway. If it is still running it may write its block again: check with" \
        "kubectl --namespace $CONTROLLER_NAMESPACE get pods --selector '$CONTROLLER_SELECTOR'"
      return 0
    fi
    if [ -z "$announced" ]; then
      log "waiting up to ${QUIESCE_SECONDS}s for the controller's pods to stop ($pods)"
      announced=yes
    fi
    sleep 1
  done
}
