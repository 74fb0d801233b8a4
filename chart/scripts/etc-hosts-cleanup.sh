# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# ouroboros pre-delete hook, etc-hosts mode, second step: wait until the cleanup DaemonSet has run on every
# node it targets (its init container removes this release's block from the node's hosts file and exits 0;
# only then does the pod become Ready), then delete that DaemonSet.
#
# Done means, in the DaemonSet's status: observedGeneration >= metadata.generation (the status describes
# this spec), and numberReady == updatedNumberScheduled == desiredNumberScheduled. With no node to run on
# (desiredNumberScheduled 0, once observed) there is nothing to clean.
#
# Run after lib/common.sh, joined into one text by the chart (lib/common.sh says how, and where it runs).
# Exit 0: every node cleaned, DaemonSet deleted. Exit 1: not every node was cleaned by the deadline (the
# DaemonSet is kept so its pods can be inspected), or the DaemonSet is missing, with a message saying what
# to do.
#
# Environment:
#   NAMESPACE, DAEMONSET  the cleanup DaemonSet
#   TIMEOUT_SECONDS       how long to wait for every node (default 120)

require NAMESPACE DAEMONSET
seconds TIMEOUT_SECONDS 120

make_work

ds="$NAMESPACE/$DAEMONSET"
# One line: generation observedGeneration desired updated ready (a missing number prints as -).
TEMPLATE='{{or .metadata.generation "-"}} {{with .status}}{{or .observedGeneration "-"}} {{or .desiredNumberScheduled "-"}} {{or .updatedNumberScheduled "-"}} {{or .numberReady "-"}}{{else}}- - - -{{end}}{{"\n"}}'

# Prints "key=value,..." of the DaemonSet's pod selector, for the message on timeout.
pod_selector() {
  # shellcheck disable=SC2016 # template variables, not the shell's
  kubectl get daemonset "$DAEMONSET" --namespace "$NAMESPACE" \
    --output 'go-template={{range $k, $v := .spec.selector.matchLabels}}{{$k}}={{$v}},{{end}}' 2>/dev/null |
    sed 's/,$//' || true
}

log "waiting up to ${TIMEOUT_SECONDS}s for daemonset $ds to clean this release's block from every node's hosts file"
start_deadline "$TIMEOUT_SECONDS"
last=
while :; do
  if kubectl get daemonset "$DAEMONSET" --namespace "$NAMESPACE" --ignore-not-found \
    --output "go-template=$TEMPLATE" >"$work/status" 2>"$work/err"; then
    if [ ! -s "$work/status" ]; then
      fail "daemonset $ds not found, so no node's hosts file was cleaned by it. Check the uninstall's hook" \
        "resources, or remove the block between the ouroboros markers from each node's hosts file by hand."
    fi
    read -r generation observed desired updated ready <"$work/status" || true
    # Treat a missing count as 0 and a missing observedGeneration as "not observed yet".
    [ "$desired" = - ] && desired=0
    [ "$updated" = - ] && updated=0
    [ "$ready" = - ] && ready=0
    [ "$generation" = - ] && generation=0
    current=no
    [ "$observed" != - ] && [ "$observed" -ge "$generation" ] && current=yes
    if [ "$current" = yes ] && [ "$ready" -eq "$desired" ] && [ "$updated" -eq "$desired" ]; then
      if [ "$desired" -eq 0 ]; then
        log "daemonset $ds runs on no node: no hosts file to clean"
      else
        log "all $desired nodes have cleaned their hosts file"
      fi
      break
    fi
    now_state="desired $desired, updated $updated, cleaned (ready) $ready, status current: $current"
    [ "$now_state" != "$last" ] && log "not done yet: $now_state"
    last=$now_state
  else
    show "$work/err"
  fi
  if past_deadline; then
    selector=$(pod_selector)
    if [ -n "$last" ]; then
      # A node counts as clean when its pod is both of the current spec and Ready.
      clean=$ready
      [ "$updated" -lt "$clean" ] && clean=$updated
      missing=$((desired - clean))
      [ "$missing" -ge 0 ] || missing=0
      summary="$missing of $desired nodes have not cleaned their hosts file ($last)"
    else
      summary="the state of daemonset $ds could not be read"
    fi
    fail "$summary after ${TIMEOUT_SECONDS}s. The daemonset is kept so its pods can be inspected:" \
      "kubectl --namespace $NAMESPACE get pods --selector '$selector' --output wide (the not Ready ones, and" \
      "nodes with none), then kubectl --namespace $NAMESPACE logs <pod> --all-containers. Fix the cause (or" \
      "clean those nodes' hosts files by hand), delete the daemonset" \
      "(kubectl --namespace $NAMESPACE delete daemonset $DAEMONSET) and uninstall again."
  fi
  sleep 1
done

if ! kubectl delete daemonset "$DAEMONSET" --namespace "$NAMESPACE" --ignore-not-found --wait=false \
  >"$work/out" 2>"$work/err"; then
  show "$work/err"
  fail "every node is clean, but deleting daemonset $ds failed; delete it by hand:" \
    "kubectl --namespace $NAMESPACE delete daemonset $DAEMONSET"
fi
log "deleted daemonset $ds; every node's hosts file is clean"
