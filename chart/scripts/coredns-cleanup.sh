# shellcheck shell=sh
# shellcheck disable=SC2154 # $work is set by make_work in lib/common.sh, which runs first
# ouroboros pre-delete hook, coredns mode: stop the controller, then remove this release's block from the
# Corefile ConfigMap and nothing else.
#
# Run after lib/common.sh and lib/quiesce.sh, joined into one text by the chart (lib/common.sh says how, and
# where it runs). Exit 0: the block was removed, or there was nothing to remove. Exit 1: refused or failed,
# with a message saying what to fix.
#
# Environment:
#   CONTROLLER_NAMESPACE, CONTROLLER_DEPLOYMENT  the controller to scale to 0 first
#   CONTROLLER_SELECTOR  the label selector of its pods (a=b,c=d); the script waits until none is left
#   QUIESCE_SECONDS    how long to wait for its pods to stop (default 60; on timeout: warn and go on)
#   TARGET_NAMESPACE, TARGET_CONFIGMAP, TARGET_KEY  where the Corefile lives
#   MARKER_BEGIN, MARKER_END  this release's exact marker lines. A line is a marker when, with the spaces,
#                      tabs and carriage returns around it trimmed, it equals the text exactly, so another
#                      release's keyed block never matches and is left alone.
#   ATTEMPTS           read-edit-write attempts before giving up (default 5); a write carries the
#                      resourceVersion it read, so a concurrent change (409 Conflict) means read again.
#
# The value is read with a go-template (the raw string, not YAML lines, so quoting by the printer cannot
# matter), edited line by line with every byte outside the block kept (CRLF, tabs, a missing final newline),
# and written back with a JSON merge patch that holds metadata.resourceVersion as a precondition.

require CONTROLLER_NAMESPACE CONTROLLER_DEPLOYMENT CONTROLLER_SELECTOR TARGET_NAMESPACE TARGET_CONFIGMAP TARGET_KEY MARKER_BEGIN MARKER_END
seconds QUIESCE_SECONDS 60
ATTEMPTS=${ATTEMPTS:-5}
if ! is_count "$ATTEMPTS" || [ "$ATTEMPTS" -lt 1 ]; then
  fail "ATTEMPTS must be a whole number >= 1, got '$ATTEMPTS'"
fi
# A ConfigMap key is letters, digits, '-', '_' and '.': checked so it can go into a template and JSON as is.
case "$TARGET_KEY" in
  *[!-._a-zA-Z0-9]*) fail "TARGET_KEY '$TARGET_KEY' is not a valid ConfigMap key (letters, digits, '-', '_', '.')" ;;
esac
export MARKER_BEGIN MARKER_END

make_work

# The awk program: reads the get output (resourceVersion, "present", the value's lines, a sentinel line),
# finds this release's markers and either writes the merge patch (exit 0), finds nothing to do (exit 3) or
# refuses (exit 4). Messages go to the file named by msgs. Line numbers in messages count from 1 in the value.
# shellcheck disable=SC2016 # awk's own $0, not the shell's
STRIP_AWK='
function trim(s) {
  sub(/^[ \t\r]+/, "", s)
  sub(/[ \t\r]+$/, "", s)
  return s
}
function jsonstr(s,    out, i, n, c) {
  out = ""
  n = length(s)
  for (i = 1; i <= n; i++) {
    c = substr(s, i, 1)
    if (c in esc) out = out esc[c]
    else out = out c
  }
  return out
}
function note(text) { print text > msgs }
BEGIN {
  for (i = 1; i < 32; i++) esc[sprintf("%c", i)] = sprintf("\\u%04x", i)
  esc["\t"] = "\\t"
  esc["\r"] = "\\r"
  esc["\\"] = "\\\\"
  esc["\""] = "\\\""
  begin_text = ENVIRON["MARKER_BEGIN"]
  end_text = ENVIRON["MARKER_END"]
}
{ line[NR] = $0 }
END {
  # Records: 1 resourceVersion, 2 "present", 3..last-1 the value, last the sentinel.
  first = 3
  last = NR - 1
  begins = 0; ends = 0; b = 0; e = 0; damaged = 0
  for (i = first; i <= last; i++) {
    t = trim(line[i])
    if (t == begin_text) {
      begins++
      if (begins == 1) b = i
      else { note("the BEGIN marker appears more than once (lines " (b - 2) " and " (i - 2) ")"); damaged = 1 }
    } else if (t == end_text) {
      ends++
      if (ends == 1) e = i
      else { note("the END marker appears more than once (lines " (e - 2) " and " (i - 2) ")"); damaged = 1 }
    }
  }
  if (begins == 0) {
    if (ends > 0) note("a stray END marker without a BEGIN marker is at line " (e - 2) "; it is left in place")
    exit 3
  }
  if (ends == 0) { note("the BEGIN marker at line " (b - 2) " has no END marker after it"); damaged = 1 }
  else if (e < b) { note("the END marker at line " (e - 2) " comes before the BEGIN marker at line " (b - 2)); damaged = 1 }
  if (!damaged) {
    for (i = b + 1; i < e; i++) {
      if (trim(line[i]) ~ /^# === (BEGIN|END) ouroboros/) {
        note("line " (i - 2) ", inside this release'"'"'s block, is another ouroboros marker: " trim(line[i]))
        damaged = 1
      }
    }
  }
  if (damaged) exit 4
  # Every value line but the last ends with a newline; keep each kept line with its own line break.
  value = ""
  for (i = first; i <= last; i++) {
    if (i >= b && i <= e) continue
    value = value jsonstr(line[i])
    if (i < last) value = value "\\n"
  }
  printf "{\"metadata\":{\"resourceVersion\":\"%s\"},\"data\":{\"%s\":\"%s\"}}", line[1], key, value > patch
  note("lines " (b - 2) " to " (e - 2) " (" (e - b + 1) " lines)")
  exit 0
}'

# Prints: resourceVersion, then (only when the key exists, even if empty) "present" and the raw value, then
# a sentinel line, so the value's final newline (or its absence) survives: the value is everything between.
# shellcheck disable=SC2016 # template variables, not the shell's
TEMPLATE='{{.metadata.resourceVersion}}{{"\n"}}{{if .data}}{{range $k, $v := .data}}{{if eq $k "'"$TARGET_KEY"'"}}present{{"\n"}}{{$v}}{{"\n"}}{{end}}{{end}}{{end}}#end'

strip() {
  cm="$TARGET_NAMESPACE/$TARGET_CONFIGMAP"
  attempt=1
  while :; do
    : >"$work/msgs"
    if kubectl get configmap "$TARGET_CONFIGMAP" --namespace "$TARGET_NAMESPACE" --ignore-not-found \
      --output "go-template=$TEMPLATE" >"$work/read" 2>"$work/err"; then
      if [ ! -s "$work/read" ]; then
        log "configmap $cm not found: nothing to clean"
        return 0
      fi
      if [ "$(sed -n 2p "$work/read")" != present ]; then
        log "configmap $cm has no key $TARGET_KEY: nothing to clean"
        return 0
      fi
      rv=$(sed -n 1p "$work/read")
      status=0
      awk -v msgs="$work/msgs" -v patch="$work/patch.json" -v key="$TARGET_KEY" "$STRIP_AWK" "$work/read" ||
        status=$?
      case "$status" in
        0) ;;
        3)
          [ -s "$work/msgs" ] && sed "s/^/$PREFIX note: /" "$work/msgs"
          log "no '$MARKER_BEGIN' line in $cm key $TARGET_KEY: nothing to clean"
          return 0
          ;;
        4)
          printf '%s ERROR: refusing to edit %s key %s, its ouroboros markers are damaged:\n' "$PREFIX" "$cm" \
            "$TARGET_KEY" >&2
          sed "s/^/$PREFIX   - /" "$work/msgs" >&2
          fail "nothing was changed. Fix the markers by hand (keep exactly one '$MARKER_BEGIN' line followed" \
            "by one '$MARKER_END' line, or delete the block with both markers), e.g. with" \
            "kubectl --namespace $TARGET_NAMESPACE edit configmap $TARGET_CONFIGMAP, then uninstall again."
          ;;
        *) fail "could not process $cm key $TARGET_KEY (awk exited with $status); nothing was changed" ;;
      esac
      if kubectl patch configmap "$TARGET_CONFIGMAP" --namespace "$TARGET_NAMESPACE" --type=merge \
        --patch-file="$work/patch.json" >"$work/out" 2>"$work/err"; then
        log "removed this release's block ($(cat "$work/msgs")) from $cm key $TARGET_KEY" \
          "(resourceVersion $rv); everything else is unchanged"
        return 0
      fi
      if grep -q 'Conflict' "$work/err"; then
        log "attempt $attempt/$ATTEMPTS: $cm changed since it was read (409 Conflict)"
      else
        log "attempt $attempt/$ATTEMPTS: writing $cm failed:"
        show "$work/err"
      fi
    else
      log "attempt $attempt/$ATTEMPTS: reading $cm failed:"
      show "$work/err"
    fi
    if [ "$attempt" -ge "$ATTEMPTS" ]; then
      fail "gave up after $ATTEMPTS attempts; this release's block is still in $cm. Remove the lines from" \
        "'$MARKER_BEGIN' to '$MARKER_END' by hand: kubectl --namespace $TARGET_NAMESPACE edit configmap $TARGET_CONFIGMAP"
    fi
    attempt=$((attempt + 1))
    sleep 1
  done
}

quiesce
strip
