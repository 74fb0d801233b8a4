import assert from "node:assert/strict";
import { sampleHosts, WILDCARD_PROBE_LABEL } from "../../lib/doctor/host_sample.ts";
import { prng } from "../support/random.ts";

Deno.test("host sample: distinct, sorted, wildcards as a probe name, all when within the limit", () => {
  assert.deepEqual(
    sampleHosts(["B.example.com.", "*.apps.example.com", "a.example.com", "b.example.com", ""], 20),
    {
      hosts: ["a.example.com", "b.example.com", `${WILDCARD_PROBE_LABEL}.apps.example.com`],
      total: 3,
    },
  );
  assert.deepEqual(sampleHosts([], 5), { hosts: [], total: 0 });
});

Deno.test("host sample: above the limit, exactly limit names, distinct, spread from first to near last", () => {
  const random = prng(15);
  for (let round = 0; round < 200; round++) {
    const count = 1 + Math.floor(random() * 300);
    const limit = 1 + Math.floor(random() * 40);
    const names = Array.from({ length: count }, (_, i) => `host-${String(i).padStart(4, "0")}.example.com`);
    const sample = sampleHosts(names, limit);
    assert.equal(sample.total, count);
    assert.equal(sample.hosts.length, Math.min(count, limit));
    assert.equal(new Set(sample.hosts).size, sample.hosts.length);
    assert.equal(sample.hosts[0], names[0]);
    assert.deepEqual([...sample.hosts].sort(), sample.hosts);
    if (count > limit) {
      // The last pick lies in the last 1/limit of the list: the sample spans it.
      const last = names.indexOf(sample.hosts.at(-1)!);
      assert.ok(last >= count - Math.ceil(count / limit), `${last} of ${count} with limit ${limit}`);
    }
  }
});
