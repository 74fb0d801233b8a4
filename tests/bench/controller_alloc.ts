/**
 * Where the controller's bytes go, step by step, at the benchmark's scale: run by
 * `deno task bench:controller` in a child process with `--expose-gc` and a 64 MiB young
 * generation, so that no collection runs inside a measured step and the growth of V8's used
 * heap during the step is what the step allocated (strings over 1 MB included; they live in the
 * large-object space, which the used heap counts).
 *
 * Measured, with the controller's own decoders, store and Corefile editor on objects the fake
 * API server stores (so with its `managedFields`, uid, timestamps):
 *
 * - per Ingress: the bytes the watch cache keeps (live after a full collection), against the
 *   bytes of the object as `JSON.parse` gives it (what a cache of raw objects keeps);
 * - per status update: what parsing and decoding one watch line allocates, and what the cache
 *   keeps of the new version (the parts it does not share with the version it replaces);
 * - per change with 20,000 hosts: each step of one Corefile write (the read's body, its parse and
 *   decode, the edit, the diff, the patch body and its bytes, the answer, the watch's echo).
 *
 * Prints one JSON object (see {@linkcode AllocAccount}) on stdout.
 *
 * @module
 */

import { Store } from "../../lib/reflector/store.ts";
import { CONFIG_MAP } from "../../lib/resources/config_map.ts";
import { INGRESS, type Ingress } from "../../lib/resources/ingress.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";
import type { ResourceType } from "../../lib/resources/resource_type.ts";
import { applyCorefileBlock } from "../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { unifiedDiff } from "../../lib/util/unified_diff.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { BENCH_FQDN, BENCH_TOKEN, benchIngress, COREDNS, seed } from "./controller_cluster.ts";

/** One measured step: bytes allocated (or kept, for the cache) per unit. */
export interface AllocStep {
  readonly step: string;
  readonly bytes: number;
}

/** What the script prints. */
export interface AllocAccount {
  readonly ingresses: number;
  readonly perIngress: readonly AllocStep[];
  readonly perStatusUpdate: readonly AllocStep[];
  readonly perChange: readonly AllocStep[];
}

const INGRESSES = 10_000;
const UPDATES = 2_000;

const collect: () => void = (() => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
  return gc;
})();

function used(): number {
  return Deno.memoryUsage().heapUsed;
}

/** What `run` allocated, with no collection before it ends (the young generation is 64 MiB). */
function allocated<T>(run: () => T): { readonly value: T; readonly bytes: number } {
  collect();
  const before = used();
  const value = run();
  return { value, bytes: used() - before };
}

/** What stays live after `run`, per unit. */
function kept<T>(run: () => T): { readonly value: T; readonly bytes: number } {
  collect();
  const before = used();
  const value = run();
  collect();
  return { value, bytes: used() - before };
}

function decoded<T extends KubeObject>(type: ResourceType<T>, raw: unknown): T {
  const result = type.decode(raw);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

await using server = await startFakeApiServer({ token: BENCH_TOKEN, bookmarkIntervalMs: 0 });
const model = seed(server, INGRESSES);
const wire = server.list("networking.k8s.io/v1", "Ingress").map((object) => JSON.stringify(object));

// ---- per Ingress -------------------------------------------------------------------------------
const raws = kept(() => wire.map((text) => JSON.parse(text) as unknown));
const rawBytes = raws.bytes;
raws.value.length = 0;
const store = new Store<Ingress>();
const cached = kept(() => {
  store.replace(wire.map((text) => decoded(INGRESS, JSON.parse(text))));
  return store.size;
});
const wireBytes = wire.reduce((sum, text) => sum + text.length, 0);

// ---- per status update -------------------------------------------------------------------------
const lines: string[] = [];
for (let n = 0; n < UPDATES; n++) {
  const i = n % INGRESSES;
  const updated = server.update(benchIngress(i, model.get(i), `10.1.${(n >> 8) & 255}.${n & 255}`));
  lines.push(JSON.stringify({ type: "MODIFIED", object: updated }));
}
const parsed = allocated(() => lines.map((line) => JSON.parse(line) as { object: unknown }));
const decodedBytes = allocated(() => parsed.value.map((event) => decoded(INGRESS, event.object))).bytes;
parsed.value.length = 0;
// The versions they replace stay referenced, so what the cache keeps of each update shows: the
// parts of the new version it does not share with the old one.
const replaced = [...store.list()];
const applied = kept(() => {
  for (const line of lines) store.apply(decoded(INGRESS, (JSON.parse(line) as { object: unknown }).object));
});
replaced.length = 0;

// ---- per change ----------------------------------------------------------------------------------
const hosts = model.all();
const first = applyCorefileBlock(
  ((server.get("v1", "ConfigMap", COREDNS.namespace, COREDNS.name)?.data ?? {}) as Record<string, string>)[
    COREDNS.key
  ] ?? "",
  { hosts, fqdn: BENCH_FQDN },
);
if (first.kind !== "changed") throw new Error("the first edit changed nothing");
const current = server.get("v1", "ConfigMap", COREDNS.namespace, COREDNS.name) ?? {};
const stored = server.update({ ...current, data: { [COREDNS.key]: first.corefile } });
const body = allocated(() => JSON.stringify(stored));
const read = allocated(() => decoded(CONFIG_MAP, JSON.parse(body.value)));
const corefile = read.value.data[COREDNS.key] ?? "";
const changedHosts = [...hosts.slice(1), "zz-new.io"].sort();
const edit = allocated(() => applyCorefileBlock(corefile, { hosts: changedHosts, fqdn: BENCH_FQDN }));
const next = edit.value.kind === "changed" ? edit.value.corefile : "";
const diff = allocated(() => unifiedDiff(corefile, next, { label: "kube-system/coredns[Corefile]" }));
const patch = allocated(() =>
  JSON.stringify({
    data: { [COREDNS.key]: next },
    metadata: { resourceVersion: read.value.metadata.resourceVersion },
  })
);
// Outside V8's heap (an ArrayBuffer's backing store): counted by its length.
const patchBytes = new TextEncoder().encode(patch.value).byteLength;
const answerText = JSON.stringify({ ...stored, data: { [COREDNS.key]: next } });
const answer = allocated(() => decoded(CONFIG_MAP, JSON.parse(answerText)));
const echoLine = JSON.stringify({ type: "MODIFIED", object: { ...stored, data: { [COREDNS.key]: next } } });
const echo = allocated(() => JSON.parse(echoLine) as unknown);
const unchanged = allocated(() => applyCorefileBlock(next, { hosts: changedHosts, fqdn: BENCH_FQDN }));

const account: AllocAccount = {
  ingresses: INGRESSES,
  perIngress: [
    { step: "on the wire (JSON text)", bytes: wireBytes / INGRESSES },
    { step: "as JSON.parse gives it", bytes: rawBytes / INGRESSES },
    { step: "kept by the watch cache", bytes: cached.bytes / INGRESSES },
  ],
  perStatusUpdate: [
    { step: "watch line parsed", bytes: parsed.bytes / UPDATES },
    { step: "decoded", bytes: decodedBytes / UPDATES },
    { step: "kept by the cache (the new version's own parts)", bytes: applied.bytes / UPDATES },
  ],
  perChange: [
    { step: "GET body (text)", bytes: body.bytes },
    { step: "GET parsed and decoded", bytes: read.bytes },
    { step: "edit (tokenize, rebuild, verify)", bytes: edit.bytes },
    { step: "unified diff", bytes: diff.bytes },
    { step: "patch body (text)", bytes: patch.bytes },
    { step: "patch body (UTF-8 bytes, outside the heap)", bytes: patchBytes },
    { step: "PATCH answer parsed and decoded", bytes: answer.bytes },
    { step: "watch echo parsed", bytes: echo.bytes },
    { step: "edit that finds nothing to do", bytes: unchanged.bytes },
  ],
};
// deno-lint-ignore no-console
console.log(JSON.stringify(account));
