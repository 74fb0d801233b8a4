/** The annotation that makes the workload opt-in reversible, and the patches built from it. */

import assert from "node:assert/strict";
import {
  changedByOthers,
  decodeOriginalDns,
  encodeOriginalDns,
  ORIGINAL_DNS_ANNOTATION,
  type OriginalDns,
  releasePatch,
  restorePatch,
} from "../../../lib/dns/par/original_dns.ts";

Deno.test("encodeOriginalDns / decodeOriginalDns: a round trip keeps absent fields absent and empty ones empty", () => {
  const values: OriginalDns[] = [
    { original: {}, nameservers: ["10.96.0.53"] },
    { original: { dnsPolicy: "ClusterFirst" }, nameservers: ["10.96.0.53"] },
    { original: { dnsConfig: {} }, nameservers: ["10.96.0.53"] },
    {
      original: {
        dnsPolicy: "ClusterFirstWithHostNet",
        dnsConfig: {
          nameservers: [],
          searches: ["corp.example"],
          options: [{ name: "ndots", value: "2" }, { name: "edns0" }],
        },
      },
      nameservers: ["10.96.0.53", "fd00::53"],
    },
  ];
  for (const value of values) {
    const text = encodeOriginalDns(value);
    assert.deepEqual(decodeOriginalDns(text), value, text);
    assert.equal(encodeOriginalDns(decodeOriginalDns(text) as OriginalDns), text, "stable text");
  }
  assert.equal(
    encodeOriginalDns({ original: { dnsPolicy: "ClusterFirst" }, nameservers: ["10.96.0.53"] }),
    '{"original":{"dnsPolicy":"ClusterFirst"},"nameservers":["10.96.0.53"]}',
  );
});

Deno.test("decodeOriginalDns says why a hand-edited annotation cannot be read", () => {
  const cases: [string, string][] = [
    ["{", "is not JSON"],
    ["[]", "is not a JSON object"],
    ['{"original":{}}', 'is not {"original": {…}, "nameservers": […]}'],
    ['{"original":{"dnsPolicy":1},"nameservers":[]}', "has a dnsPolicy that is not a string"],
    ['{"original":{"dnsConfig":{"searches":"a"}},"nameservers":[]}', "has a malformed dnsConfig"],
    ['{"original":{"dnsConfig":{"options":[{"name":5}]}},"nameservers":[]}', "has a malformed dnsConfig"],
  ];
  for (const [text, reason] of cases) assert.equal(decodeOriginalDns(text), reason, text);
});

Deno.test("changedByOthers: dnsPolicy not None, or nameservers other than those written", () => {
  const stored: OriginalDns = { original: {}, nameservers: ["10.96.0.53"] };
  const ours = {
    dnsPolicy: "None",
    dnsConfig: { nameservers: ["10.96.0.53"], searches: ["x"] },
    hostNetwork: false,
  };
  assert.equal(changedByOthers(ours, stored), undefined);
  assert.match(
    changedByOthers({ ...ours, dnsPolicy: "ClusterFirst" }, stored)!,
    /dnsPolicy is ClusterFirst \(this server wrote None\)/,
  );
  assert.match(
    changedByOthers({ dnsConfig: ours.dnsConfig, hostNetwork: false }, stored)!,
    /dnsPolicy is unset/,
  );
  assert.match(
    changedByOthers({ ...ours, dnsConfig: { nameservers: ["1.1.1.1"] } }, stored)!,
    /nameservers are \["1\.1\.1\.1"\] \(this server wrote \["10\.96\.0\.53"\]\)/,
  );
  assert.ok(
    changedByOthers({ dnsPolicy: "None", hostNetwork: false }, stored) !== undefined,
    "no dnsConfig at all",
  );
});

Deno.test("restorePatch names every dnsConfig field; absent before means deleted", () => {
  assert.deepEqual(restorePatch({ original: {}, nameservers: ["x"] }), {
    metadata: { annotations: { [ORIGINAL_DNS_ANNOTATION]: null } },
    spec: { template: { spec: { dnsPolicy: null, dnsConfig: null } } },
  });
  assert.deepEqual(
    restorePatch({
      original: { dnsPolicy: "ClusterFirst", dnsConfig: { searches: ["corp.example"] } },
      nameservers: ["x"],
    }),
    {
      metadata: { annotations: { [ORIGINAL_DNS_ANNOTATION]: null } },
      spec: {
        template: {
          spec: {
            dnsPolicy: "ClusterFirst",
            dnsConfig: { nameservers: null, searches: ["corp.example"], options: null },
          },
        },
      },
    },
  );
  assert.deepEqual(releasePatch(), { metadata: { annotations: { [ORIGINAL_DNS_ANNOTATION]: null } } });
});
