/**
 * Ten virtual minutes of randomized faults on three replicas sharing one Lease (partitions that
 * refuse or hang, kills and restarts, pauses between reading and writing), on a manual clock:
 * every write that lands on the target is made by the replica the Lease names at that moment,
 * and once the faults stop, the target holds the current desired state. The writers behave as
 * the controller's sinks do: read the target, compute, ask the fence, then write with the read's
 * resourceVersion as the precondition. Reliability matrix rows T-2.21, T-7.3, T-7.4 and T-7.7.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_ELECTION_TIMING } from "../../lib/election/election_timing.ts";
import { LeaseElector } from "../../lib/election/lease_elector.ts";
import type { Clock } from "../../lib/util/clock.ts";
import { FakeClock, settle } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { prng } from "../support/random.ts";
import { MemoryLeases } from "./memory_lease_api.ts";

/** The object the replicas fight over (a ConfigMap), with optimistic concurrency. */
class Target {
  rv = 0;
  content = -1;
  readonly landed: { writer: string; holder: string; content: number }[] = [];
}

interface Replica {
  readonly name: string;
  elector: LeaseElector;
  stop: AbortController;
  running: Promise<void>;
  /** Virtual time until which the whole process is paused (SIGSTOP): no timer fires, nothing is sent. */
  pausedUntil: number;
  alive: boolean;
}

/**
 * The shared clock as a paused process sees it: time goes on, but a timer that falls due during
 * the pause fires only when the process resumes.
 */
function pausableClock(base: FakeClock, pausedUntil: () => number): Clock {
  return {
    now: () => base.now(),
    async sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
      if (!await base.sleep(ms, signal)) return false;
      const rest = pausedUntil() - base.now();
      return rest > 0 ? await base.sleep(rest, signal) : true;
    },
  };
}

/**
 * Each seed runs twice: with resourceVersion preconditions (ConfigMap updates), where a stale write
 * may also be stopped by a 409, and without (merge patches of owned objects: last write wins),
 * where the fence alone must stop it.
 */
const RUNS = [1, 3].flatMap((seed) => [{ seed, preconditions: true }, { seed, preconditions: false }]);

for (const { seed, preconditions } of RUNS) {
  const writes = preconditions ? "preconditioned writes" : "last-write-wins writes";
  Deno.test(`election chaos (seed ${seed}, ${writes}): only the lease holder's writes land; the end state is the desired one`, async () => {
    const random = prng(seed);
    const clock = new FakeClock();
    const store = new MemoryLeases(clock);
    const target = new Target();
    /** The desired content: bumped by "Ingress changes". */
    let world = 0;
    let generation = 0;

    const spawn = (name: string): Replica => {
      generation++;
      const replica = { name, pausedUntil: 0, alive: true } as Replica;
      const own = pausableClock(clock, () => replica.pausedUntil);
      const held = async () => {
        const rest = replica.pausedUntil - clock.now();
        if (rest > 0) await clock.sleep(rest);
      };
      replica.elector = new LeaseElector({
        api: store.client(name, held),
        lease: { namespace: "ns", name: "lease" },
        identity: `${name}_${generation}`,
        timing: DEFAULT_ELECTION_TIMING,
        log: new LogRecorder(),
        clock: own,
        random,
      });
      replica.stop = new AbortController();
      replica.running = replica.elector.run(replica.stop.signal);
      return replica;
    };
    const replicas = ["a", "b", "c"].map(spawn);
    const all = [...replicas];

    /** The write half: ask the fence, then write with the read's resourceVersion as the precondition. */
    const commit = (replica: Replica, read: { rv: number; content: number }): void => {
      try {
        replica.elector.fence("PUT target");
      } catch {
        return;
      }
      if (preconditions && read.rv !== target.rv) return; // 409 Conflict: someone wrote since the read
      target.rv++;
      target.content = read.content;
      target.landed.push({
        writer: replica.elector.identity,
        holder: store.lease?.spec.holderIdentity ?? "",
        content: read.content,
      });
    };

    const writeOnce = (replica: Replica): void => {
      if (!replica.alive || clock.now() < replica.pausedUntil) return;
      if (!replica.elector.isLeader()) return;
      const read = { rv: target.rv, content: world };
      if (read.content === target.content) return;
      if (random() < 0.05) {
        // The process is paused between its read and its write (SIGSTOP, a long GC): its timers
        // and requests wait too. It resumes with this view, and its write goes first.
        const pauseMs = 5_000 + Math.floor(random() * 25_000);
        replica.pausedUntil = clock.now() + pauseMs;
        void clock.sleep(pauseMs).then(() => {
          if (replica.alive) commit(replica, read);
        });
        return;
      }
      commit(replica, read);
    };

    const faultsEndAt = clock.now() + 600_000;
    while (clock.now() < faultsEndAt) {
      const roll = random();
      const victim = replicas[Math.floor(random() * replicas.length)]!;
      if (roll < 0.10) world++;
      else if (roll < 0.13) store.partition(victim.name, random() < 0.5 ? "refuse" : "hang");
      else if (roll < 0.18) store.heal(victim.name);
      else if (roll < 0.20 && victim.alive) {
        victim.alive = false;
        victim.stop.abort();
        await victim.running;
      } else if (roll < 0.23 && !victim.alive) {
        Object.assign(victim, spawn(victim.name));
      }
      for (const replica of replicas) writeOnce(replica);
      await clock.advance(250 + Math.floor(random() * 750));
    }
    // Faults stop: heal everyone, bring everyone back, and let the lease settle.
    for (const [i, replica] of replicas.entries()) {
      store.heal(replica.name);
      replica.pausedUntil = 0;
      if (!replica.alive) {
        replicas[i] = spawn(replica.name);
        all.push(replicas[i]!);
      }
    }
    for (let i = 0; i < 120; i++) {
      for (const replica of replicas) writeOnce(replica);
      await clock.advance(500);
    }

    assert.ok(target.landed.length > 5, `only ${target.landed.length} writes landed`);
    for (const write of target.landed) {
      assert.equal(
        write.writer,
        write.holder,
        `a write by ${write.writer} landed while ${write.holder} held the lease`,
      );
    }
    assert.equal(target.content, world, "the final state is the current desired state");
    assert.equal(replicas.filter((replica) => replica.elector.isLeader()).length, 1);

    for (const replica of replicas) replica.stop.abort();
    await clock.advance(60_000);
    await Promise.all(all.map((replica) => replica.running));
    await settle();
  });
}
