/**
 * The revert hold-off end to end on a manual clock: the reconcile loop with the real coredns
 * sink, an in-memory CoreDNS ConfigMap whose changes reach the loop as the target watch would,
 * and another writer (a GitOps tool) that re-applies its own Corefile whenever ours is in it.
 * What an operator sees: how often the controller writes per hour while the tool fights, and
 * whether the block is there once the tool stops (issue 18).
 */

import assert from "node:assert/strict";
import { ReconcileLoop } from "../../lib/controller/reconcile_loop.ts";
import { Store } from "../../lib/reflector/store.ts";
import type { ConfigMap } from "../../lib/resources/config_map.ts";
import type { Ingress } from "../../lib/resources/ingress.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";
import { CorednsSink } from "../../lib/controller/modes/coredns/coredns_sink.ts";
import type { ConfigMapApi } from "../../lib/controller/modes/coredns/corefile_location.ts";
import { ingress } from "../hostnames/factories.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { KUBEADM } from "./modes/coredns/fixtures/corefiles.ts";
import { BEGIN } from "./modes/coredns/support.ts";

const FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";
const MINUTE = 60_000;

/** The CoreDNS ConfigMap in memory: ours and the other writer's changes both reach `watch`. */
class CorednsConfigMap {
  readonly watch = new Store<KubeObject>();
  corefile = KUBEADM;
  /** Clock times of our writes. */
  readonly writeTimes: number[] = [];
  readonly #clock: FakeClock;
  #version = 1;

  constructor(clock: FakeClock) {
    this.#clock = clock;
    this.watch.replace([this.object()]);
  }

  get ourWrites(): number {
    return this.writeTimes.length;
  }

  get hasBlock(): boolean {
    return this.corefile.includes(BEGIN);
  }

  object(): ConfigMap {
    return {
      metadata: {
        name: "coredns",
        namespace: "kube-system",
        uid: "u1",
        resourceVersion: String(this.#version),
        labels: {},
        annotations: {},
        ownerReferences: [],
      },
      data: { Corefile: this.corefile },
      binaryDataKeys: [],
      immutable: false,
    };
  }

  /** Another writer replaces the Corefile (a PUT that bypasses us). */
  overwrite(corefile: string): void {
    this.#store(corefile);
  }

  readonly api = {
    get: () => Promise.resolve(this.object()),
    mergePatch: (_type: unknown, _ref: unknown, patch: { data: { Corefile: string } }, options: {
      resourceVersion?: string;
    }) => {
      assert.equal(options.resourceVersion, String(this.#version), "the write carries the version read");
      this.writeTimes.push(this.#clock.now());
      this.#store(patch.data.Corefile);
      return Promise.resolve(this.object());
    },
  } as unknown as ConfigMapApi;

  #store(corefile: string): void {
    this.corefile = corefile;
    this.#version += 1;
    this.watch.apply(this.object());
  }
}

async function withLoop(test: (cm: CorednsConfigMap, clock: FakeClock) => Promise<void>): Promise<void> {
  const clock = new FakeClock();
  const cm = new CorednsConfigMap(clock);
  const ingresses = new Store<Ingress>();
  const loop = new ReconcileLoop({
    sources: { ingresses },
    targets: [cm.watch],
    sink: new CorednsSink({
      client: cm.api,
      target: { namespace: "kube-system", configmap: "coredns", key: "Corefile" },
      proxyFqdn: FQDN,
      clock,
      random: () => 0.5,
    }),
    desired: { clusterDomain: "cluster.local", proxyFqdn: FQDN },
    resyncMs: 10 * MINUTE, // the binary's default --resync
    clock,
    random: () => 0.5,
    log: new LogRecorder(),
  });
  const stop = new AbortController();
  const running = loop.run(stop.signal);
  try {
    ingresses.replace([ingress("shop/web", { tls: ["shop.example.com"] })]);
    await clock.advance(1_000);
    assert.ok(cm.hasBlock, "the first reconcile wrote the block");
    await test(cm, clock);
  } finally {
    stop.abort();
    await running;
  }
}

Deno.test("hold-off: a tool reverting every 10 s for an hour gets a bounded number of rewrites, each at a hold-off's end", async () => {
  await withLoop(async (cm, clock) => {
    const start = clock.now();
    const before = cm.ourWrites;
    for (let second = 10; second <= 3_600; second += 10) {
      await clock.advance(10_000);
      if (cm.hasBlock) cm.overwrite(KUBEADM);
    }
    const times = cm.writeTimes.slice(before).map((at) => Math.round((at - start) / 1000));
    // The first write came before; two immediate repairs (reverts 1 and 2), then, from the third revert
    // on, one rewrite as each hold-off ends: 30 s, 1, 2, 4, 8, 16 min after the previous write.
    const gaps = times.slice(1).map((at, i) => Math.round((at - times[i]!) / 10) * 10);
    assert.deepEqual(gaps, [10, 30, 60, 120, 240, 480, 960], `our writes at ${times.join(", ")} s`);
    assert.equal(times.length, 8, "9 writes in the hour in all; the next hold-off is 30 minutes");
  });
});

Deno.test("hold-off: when the tool stops, the block is back at the hold-off's end, not at the next resync", async () => {
  await withLoop(async (cm, clock) => {
    // Three reverts in a row start a fight: the third leaves the block missing for 30 s.
    for (let revert = 0; revert < 3; revert++) {
      cm.overwrite(KUBEADM);
      await clock.advance(1_000);
    }
    assert.equal(cm.hasBlock, false, "held off");
    await clock.advance(27_000);
    assert.equal(cm.hasBlock, false, "still within the 30 s hold-off");
    await clock.advance(2_000);
    assert.ok(cm.hasBlock, "re-asserted once, at the hold-off's end");
    const writes = cm.ourWrites;
    await clock.advance(60 * MINUTE);
    assert.ok(cm.hasBlock, "present whenever no one reverts it");
    assert.equal(cm.ourWrites, writes, "and written only once");
  });
});

Deno.test("hold-off: 30 minutes without a revert end the fight; the next revert is repaired at once", async () => {
  await withLoop(async (cm, clock) => {
    for (let revert = 0; revert < 3; revert++) {
      cm.overwrite(KUBEADM);
      await clock.advance(1_000);
    }
    await clock.advance(30_000);
    assert.ok(cm.hasBlock);
    await clock.advance(31 * MINUTE);
    cm.overwrite(KUBEADM);
    await clock.advance(1_000);
    assert.ok(cm.hasBlock, "a calm guard repairs a single revert within the debounce");
  });
});
