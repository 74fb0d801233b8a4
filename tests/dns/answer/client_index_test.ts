/** Source address → pod: which pods are clients, and which pod an address belongs to. */

import assert from "node:assert/strict";
import { canonicalClientAddress, indexClients } from "../../../lib/dns/answer/client_index.ts";
import { prng } from "../../support/random.ts";
import { pod } from "./fixtures.ts";

function owners(index: ReadonlyMap<string, { metadata: { name: string } }>): Record<string, string> {
  return Object.fromEntries([...index].map(([ip, p]) => [ip, p.metadata.name]));
}

Deno.test("indexClients: both families of every live pod, not host-network pods, not finished ones", () => {
  const index = indexClients([
    pod({ name: "web", ips: ["10.244.1.10", "FD00:0:0:0:0:0:0:A"], podIP: "10.244.1.10" }),
    pod({ name: "legacy", podIP: "10.244.1.11" }),
    pod({ name: "agent", ips: ["192.168.1.5"], hostNetwork: true }),
    pod({ name: "done", ips: ["10.244.1.12"], phase: "Succeeded" }),
    pod({ name: "crashed", ips: ["10.244.1.13"], phase: "Failed" }),
    pod({ name: "unscheduled" }),
    pod({ name: "mapped", ips: ["::ffff:10.244.1.14"] }),
    pod({ name: "junk", ips: ["not-an-ip"] }),
  ]);
  assert.deepEqual(owners(index), {
    "10.244.1.10": "web",
    "fd00::a": "web",
    "10.244.1.11": "legacy",
    "10.244.1.14": "mapped",
  });
});

Deno.test("indexClients: the owner of a shared address does not depend on list order (property, seeded)", () => {
  const random = prng(7);
  const phases = ["Running", "Pending", "Unknown"];
  for (let round = 0; round < 200; round++) {
    const pods = Array.from({ length: 2 + Math.floor(random() * 4) }, (_, i) =>
      pod({
        name: `p${i}`,
        ips: ["10.244.0.1"],
        phase: phases[Math.floor(random() * phases.length)]!,
        ...(random() < 0.8 ? { created: `2026-01-0${1 + Math.floor(random() * 3)}T00:00:00Z` } : {}),
      }));
    const expected = owners(indexClients(pods));
    const shuffled = [...pods].sort(() => random() - 0.5);
    assert.deepEqual(owners(indexClients(shuffled)), expected, `round ${round}`);
    const winner = pods.find((p) => p.metadata.name === expected["10.244.0.1"])!;
    if (pods.some((p) => p.status.phase === "Running")) assert.equal(winner.status.phase, "Running");
  }
});

Deno.test("canonicalClientAddress: the form queries arrive in", () => {
  assert.equal(canonicalClientAddress("10.0.0.1"), "10.0.0.1");
  assert.equal(canonicalClientAddress("2001:DB8::0:1"), "2001:db8::1");
  assert.equal(canonicalClientAddress("::ffff:10.0.0.1"), "10.0.0.1");
  assert.equal(canonicalClientAddress("010.0.0.1"), undefined);
});
