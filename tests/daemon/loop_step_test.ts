import assert from "node:assert/strict";
import { addReasons } from "../../lib/daemon/control_loop.ts";
import { type LoopState, type LoopStep, nextLoopStep } from "../../lib/daemon/loop_step.ts";
import { NO_TRIGGER, type Trigger, triggerReasons } from "../../lib/controller/trigger.ts";

const NOW = 1_000;
const DEBOUNCE_MS = 100;
const SOURCES: Trigger = { ...NO_TRIGGER, sources: true };

interface Row {
  readonly name: string;
  readonly state: LoopState<Trigger>;
  readonly pending?: Trigger;
  readonly now?: number;
  readonly aborted?: boolean;
  readonly unsynced?: readonly string[];
  /** Leader election: false while another replica leads (default true). */
  readonly leading?: boolean;
  readonly step: LoopStep;
}

const ROWS: readonly Row[] = [
  {
    name: "a new loop with a cache still listing waits for the sync",
    state: { kind: "new" },
    unsynced: ["Ingress", "Service"],
    step: { kind: "wait-for-sync", unsynced: ["Ingress", "Service"] },
  },
  {
    name: "changes before the sync are not work yet",
    state: { kind: "waiting-for-sync", unsynced: ["HTTPRoute"] },
    pending: SOURCES,
    unsynced: ["HTTPRoute"],
    step: { kind: "wait-for-sync", unsynced: ["HTTPRoute"] },
  },
  {
    name: "the last cache listed: start, and the first pass runs at once (no window)",
    state: { kind: "waiting-for-sync", unsynced: ["HTTPRoute"] },
    step: { kind: "start", until: NOW },
  },
  {
    name: "everything already listed at the start",
    state: { kind: "new" },
    step: { kind: "start", until: NOW },
  },
  { name: "idle with nothing pending waits", state: { kind: "idle" }, step: { kind: "wait-for-trigger" } },
  {
    name: "a trigger while idle opens a window",
    state: { kind: "idle" },
    pending: { ...NO_TRIGGER, resync: true },
    step: { kind: "debounce", until: NOW + DEBOUNCE_MS },
  },
  {
    name: "more changes in a window do not move its end",
    state: { kind: "debouncing", until: NOW + 40 },
    pending: addReasons(SOURCES, { target: true }),
    step: { kind: "debounce", until: NOW + 40 },
  },
  {
    name: "the window ended: reconcile",
    state: { kind: "debouncing", until: NOW },
    pending: SOURCES,
    step: { kind: "reconcile" },
  },
  {
    name: "a late wake-up still reconciles",
    state: { kind: "debouncing", until: NOW - 5 },
    pending: SOURCES,
    step: { kind: "reconcile" },
  },
  {
    name: "a reconcile with nothing new since goes idle",
    state: { kind: "reconciling", since: NOW - 30, trigger: SOURCES },
    step: { kind: "wait-for-trigger" },
  },
  {
    name: "changes during a reconcile cause one more, after a new window",
    state: { kind: "reconciling", since: NOW - 30, trigger: SOURCES },
    pending: SOURCES,
    step: { kind: "debounce", until: NOW + DEBOUNCE_MS },
  },
  {
    name: "a backoff is waited out whatever comes meanwhile",
    state: { kind: "backing-off", delayMs: 500, until: NOW + 200, attempt: 1, error: "503" },
    pending: { ...NO_TRIGGER, retry: true, sources: true },
    step: { kind: "back-off", until: NOW + 200 },
  },
  {
    name: "the backoff is over: the retry gets a window",
    state: { kind: "backing-off", delayMs: 500, until: NOW, attempt: 1, error: "503" },
    pending: { ...NO_TRIGGER, retry: true },
    step: { kind: "debounce", until: NOW + DEBOUNCE_MS },
  },
  {
    name: "an aborted signal stops a loop waiting for the sync",
    state: { kind: "waiting-for-sync", unsynced: ["Ingress"] },
    unsynced: ["Ingress"],
    aborted: true,
    step: { kind: "stop" },
  },
  {
    name: "an aborted signal stops a window, pending or not",
    state: { kind: "debouncing", until: NOW },
    pending: SOURCES,
    aborted: true,
    step: { kind: "stop" },
  },
  {
    name: "an aborted signal after a failed call stops instead of backing off",
    state: { kind: "reconciling", since: NOW - 30, trigger: SOURCES },
    pending: { ...NO_TRIGGER, retry: true },
    aborted: true,
    step: { kind: "stop" },
  },
  { name: "stopped stays stopped", state: { kind: "stopped" }, pending: SOURCES, step: { kind: "stop" } },
  {
    name: "a follower still waits for its caches to sync",
    state: { kind: "new" },
    unsynced: ["Ingress"],
    leading: false,
    step: { kind: "wait-for-sync", unsynced: ["Ingress"] },
  },
  {
    name: "a follower with a trigger pending does not open a window",
    state: { kind: "idle" },
    pending: SOURCES,
    leading: false,
    step: { kind: "follow" },
  },
  {
    name: "leadership lost during a window: follow instead of reconciling",
    state: { kind: "debouncing", until: NOW },
    pending: SOURCES,
    leading: false,
    step: { kind: "follow" },
  },
  {
    name: "leadership lost while backing off: follow, no retry",
    state: { kind: "backing-off", delayMs: 500, until: NOW, attempt: 1, error: "503" },
    pending: { ...NO_TRIGGER, retry: true },
    leading: false,
    step: { kind: "follow" },
  },
  {
    name: "a follower keeps following",
    state: { kind: "following" },
    pending: SOURCES,
    leading: false,
    step: { kind: "follow" },
  },
  {
    name: "leadership gained: the pending work gets a window",
    state: { kind: "following" },
    pending: { ...SOURCES, leadership: true },
    step: { kind: "debounce", until: NOW + DEBOUNCE_MS },
  },
  {
    name: "an aborted signal stops a follower",
    state: { kind: "following" },
    leading: false,
    aborted: true,
    step: { kind: "stop" },
  },
];

Deno.test("nextLoopStep() decides every step from the state, what is pending and the time", async (t) => {
  for (const row of ROWS) {
    await t.step(row.name, () => {
      const step = nextLoopStep({
        state: row.state,
        pending: row.pending ?? NO_TRIGGER,
        now: row.now ?? NOW,
        aborted: row.aborted ?? false,
        unsynced: row.unsynced ?? [],
        debounceMs: DEBOUNCE_MS,
        leading: row.leading ?? true,
      });
      assert.deepEqual(step, row.step);
    });
  }
});

Deno.test("addReasons() only adds reasons; the controller's triggerReasons() lists them in a fixed order", () => {
  const merged = addReasons(addReasons(NO_TRIGGER, { retry: true }), { sources: true, retry: false });
  assert.deepEqual(merged, { ...NO_TRIGGER, sources: true, retry: true });
  assert.equal(triggerReasons(merged), "sources,retry");
  assert.equal(triggerReasons(NO_TRIGGER), "");
  assert.equal(
    triggerReasons({
      sources: true,
      target: true,
      prerequisite: true,
      resync: true,
      retry: true,
      leadership: true,
      recheck: true,
    }),
    "sources,target,prerequisite,resync,retry,leadership,recheck",
  );
});
