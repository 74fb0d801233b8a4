import assert from "node:assert/strict";
import type { JsonMap } from "../support/fake_apiserver/json.ts";
import { decodeLease, leaseProblems, parseMicroTime } from "../support/fake_apiserver/lease.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { FakeApiError } from "../support/fake_apiserver/status.ts";
import { call } from "./wire.ts";

const LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const LAYOUT = '"2006-01-02T15:04:05.000000Z07:00"';

const SPEC = {
  holderIdentity: "ouroboros-7d9f-abcde",
  leaseDurationSeconds: 15,
  acquireTime: "2026-12-03T13:37:03.123456Z",
  renewTime: "2026-12-03T13:37:05.000001Z",
  leaseTransitions: 4,
};

function lease(name: string, spec: JsonMap = SPEC, resourceVersion?: string): JsonMap {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      name,
      namespace: "kube-system",
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
    spec,
  };
}

function rvOf(object: Record<string, unknown>): string {
  return (object.metadata as { resourceVersion: string }).resourceVersion;
}

Deno.test("parseMicroTime accepts exactly Go's MicroTime layout, stores UTC, and words failures like Go", () => {
  const cases: [string, string][] = [
    ["2026-12-03T13:37:03.123456Z", "2026-12-03T13:37:03.123456Z"],
    ["2026-12-03T15:37:03.123456+02:00", "2026-12-03T13:37:03.123456Z"],
    ["2026-12-31T23:30:00.000001-01:00", "2027-01-01T00:30:00.000001Z"],
    ["2028-02-29T00:00:00.000000Z", "2028-02-29T00:00:00.000000Z"],
    [
      "2026-12-03T13:37:03.123Z",
      `parsing time "2026-12-03T13:37:03.123Z" as ${LAYOUT}: cannot parse ".123Z" as ".000000"`,
    ],
    [
      "2026-12-03T13:37:03Z",
      `parsing time "2026-12-03T13:37:03Z" as ${LAYOUT}: cannot parse "Z" as ".000000"`,
    ],
    [
      // The message the real server gave krustlet for nanoseconds.
      "2020-02-28T20:11:41.636526400Z",
      `parsing time "2020-02-28T20:11:41.636526400Z" as ${LAYOUT}: cannot parse "400Z" as "Z07:00"`,
    ],
    [
      "2026-12-03 13:37:03.123456Z",
      `parsing time "2026-12-03 13:37:03.123456Z" as ${LAYOUT}: cannot parse " 13:37:03.123456Z" as "T"`,
    ],
    ["2026-12-03T13:37:03.123456Zjunk", `parsing time "2026-12-03T13:37:03.123456Zjunk": extra text: "junk"`],
    ["2026-13-03T13:37:03.123456Z", `parsing time "2026-13-03T13:37:03.123456Z": month out of range`],
    ["2026-02-29T13:37:03.123456Z", `parsing time "2026-02-29T13:37:03.123456Z": day out of range`],
    ["2026-12-03T24:00:00.000000Z", `parsing time "2026-12-03T24:00:00.000000Z": hour out of range`],
  ];
  for (const [text, expected] of cases) {
    const parsed = parseMicroTime(text);
    assert.equal(parsed.ok ? parsed.canonical : parsed.error, expected, text);
  }
});

Deno.test("decodeLease types the spec like the Go struct: nulls and unknown fields go, spec is always there", () => {
  assert.deepEqual(
    decodeLease({
      ...lease("a"),
      status: { ignored: true },
      spec: {
        ...SPEC,
        holderIdentity: null,
        unknownField: "x",
        acquireTime: "2026-12-03T14:37:03.123456+01:00",
      },
    }),
    lease("a", {
      leaseDurationSeconds: 15,
      acquireTime: "2026-12-03T13:37:03.123456Z",
      renewTime: SPEC.renewTime,
      leaseTransitions: 4,
    }),
  );
  assert.deepEqual(decodeLease({ metadata: { name: "a" } }), { metadata: { name: "a" }, spec: {} });
  const refusals: [JsonMap, RegExp][] = [
    [
      { leaseDurationSeconds: "15" },
      /cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32/,
    ],
    [
      { leaseTransitions: 1.5 },
      /cannot unmarshal number 1.5 into Go struct field LeaseSpec.spec.leaseTransitions of type int32/,
    ],
    [{ leaseDurationSeconds: 2 ** 31 }, /cannot unmarshal number 2147483648 into .* of type int32/],
    [
      { holderIdentity: 7 },
      /cannot unmarshal number 7 into Go struct field LeaseSpec.spec.holderIdentity of type string/,
    ],
    [{ renewTime: 1764768000 }, /cannot unmarshal number 1764768000 into Go value of type string/],
    [{ renewTime: "2026-12-03T13:37:03.123Z" }, /parsing time "2026-12-03T13:37:03.123Z"/],
  ];
  for (const [spec, message] of refusals) {
    try {
      decodeLease(lease("a", spec));
      assert.fail(`accepted ${JSON.stringify(spec)}`);
    } catch (error) {
      assert.ok(error instanceof FakeApiError, String(error));
      assert.equal(error.code, 400);
      assert.equal(error.body.reason, "BadRequest");
      assert.match(error.body.message, /^Lease in version "v1" cannot be handled as a Lease: /);
      assert.match(error.body.message, message);
    }
  }
});

Deno.test("leaseProblems: the real server's Lease validation", () => {
  const cases: [JsonMap, string[]][] = [
    [SPEC, []],
    [{}, []],
    [{ leaseDurationSeconds: 0 }, ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]],
    [{ leaseTransitions: -1 }, [
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
    ]],
    [{ preferredHolder: "b" }, [
      "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
    ]],
    [{ preferredHolder: "b", strategy: "OldestEmulationVersion" }, []],
    [{ strategy: "example.com/mine" }, []],
    [{ strategy: "Newest" }, [
      'spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"',
    ]],
  ];
  for (const [spec, expected] of cases) {
    const causes = leaseProblems(lease("a", spec));
    assert.deepEqual(
      causes.map((cause) => `${cause.field}: ${cause.message}`),
      expected,
      JSON.stringify(spec),
    );
  }
});

Deno.test("a Lease round-trips over HTTP: every spec field, MicroTimes to the microsecond, and spec on an empty one", async () => {
  await using server = await startFakeApiServer();
  const created = await call(server.url, "POST", LEASES, { body: lease("ouroboros") });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body.spec, SPEC);
  const read = await call(server.url, "GET", `${LEASES}/ouroboros`);
  assert.deepEqual(read.body, created.body);
  const metadata = read.body.metadata as JsonMap;
  assert.equal(metadata.generation, undefined, "Leases keep no generation");
  const bare = await call(server.url, "POST", LEASES, {
    body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "bare" } },
  });
  assert.deepEqual(bare.body.spec, {});
});

Deno.test("a Lease write with a time not in MicroTime form is 400 and changes nothing", async () => {
  await using server = await startFakeApiServer();
  const created = await call(server.url, "POST", LEASES, { body: lease("l") });
  const renew = new Date(Date.UTC(2026, 11, 3, 13, 37, 9, 123)).toISOString(); // three digits
  const put = await call(server.url, "PUT", `${LEASES}/l`, {
    body: lease("l", { ...SPEC, renewTime: renew }, rvOf(created.body)),
  });
  assert.equal(put.status, 400);
  assert.equal(
    put.body.message,
    `Lease in version "v1" cannot be handled as a Lease: parsing time "2026-12-03T13:37:09.123Z" as ${LAYOUT}: ` +
      `cannot parse ".123Z" as ".000000"`,
  );
  assert.deepEqual(server.get("coordination.k8s.io/v1", "Lease", "kube-system", "l"), created.body);
  const invalid = await call(server.url, "POST", LEASES, { body: lease("m", { leaseDurationSeconds: 0 }) });
  assert.equal(invalid.status, 422);
  assert.equal(
    invalid.body.message,
    'Lease.coordination.k8s.io "m" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
  );
});

Deno.test("Lease optimistic concurrency: a stale resourceVersion is 409, none at all is 422, the current one wins", async () => {
  await using server = await startFakeApiServer();
  const created = await call(server.url, "POST", LEASES, { body: lease("l") });
  const rv = rvOf(created.body);
  const renewed = await call(server.url, "PUT", `${LEASES}/l`, {
    body: lease("l", { ...SPEC, renewTime: "2026-12-03T13:37:07.000001Z" }, rv),
  });
  assert.equal(renewed.status, 200);
  assert.notEqual(rvOf(renewed.body), rv);
  const stale = await call(server.url, "PUT", `${LEASES}/l`, {
    body: lease("l", { ...SPEC, holderIdentity: "usurper" }, rv),
  });
  assert.equal(stale.status, 409);
  assert.deepEqual([stale.body.reason, stale.body.message], [
    "Conflict",
    'Operation cannot be fulfilled on leases.coordination.k8s.io "l": the object has been modified; please apply ' +
    "your changes to the latest version and try again",
  ]);
  const unconditional = await call(server.url, "PUT", `${LEASES}/l`, { body: lease("l", SPEC) });
  assert.equal(unconditional.status, 422);
  assert.equal(
    unconditional.body.message,
    'leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0x0: ' +
      "must be specified for an update",
  );
  assert.deepEqual(
    (server.get("coordination.k8s.io/v1", "Lease", "kube-system", "l")!.spec as JsonMap).holderIdentity,
    SPEC.holderIdentity,
  );
});

Deno.test("two candidates racing: concurrent creates give one 201 and one 409 AlreadyExists; concurrent renewals from the same version give one 200 and one 409", async () => {
  await using server = await startFakeApiServer();
  const candidate = (holderIdentity: string, resourceVersion?: string) =>
    lease("race", { ...SPEC, holderIdentity }, resourceVersion);
  const creates = await Promise.all([
    call(server.url, "POST", LEASES, { body: candidate("a") }),
    call(server.url, "POST", LEASES, { body: candidate("b") }),
  ]);
  assert.deepEqual(creates.map((answer) => answer.status).sort(), [201, 409]);
  const loser = creates.find((answer) => answer.status === 409)!;
  assert.equal(loser.body.reason, "AlreadyExists");
  assert.equal(loser.body.message, 'leases.coordination.k8s.io "race" already exists');
  const winner = creates.find((answer) => answer.status === 201)!;
  const rv = rvOf(winner.body);
  const updates = await Promise.all([
    call(server.url, "PUT", `${LEASES}/race`, { body: candidate("a", rv) }),
    call(server.url, "PUT", `${LEASES}/race`, { body: candidate("b", rv) }),
  ]);
  assert.deepEqual(updates.map((answer) => answer.status).sort(), [200, 409]);
  const held = server.get("coordination.k8s.io/v1", "Lease", "kube-system", "race")!;
  const updated = updates.find((answer) => answer.status === 200)!;
  assert.deepEqual(held, updated.body, "the stored Lease is the one write that won");
});

Deno.test("a PUT to a missing Lease creates it (201), whatever resourceVersion it carries", async () => {
  await using server = await startFakeApiServer();
  const put = await call(server.url, "PUT", `${LEASES}/fresh`, { body: lease("fresh", SPEC, "42") });
  assert.equal(put.status, 201);
  assert.deepEqual(put.body.spec, SPEC);
  assert.notEqual(rvOf(put.body), "42");
  assert.equal(
    (await call(server.url, "PUT", `${LEASES}/other`, { body: lease("fresh") })).status,
    400,
    "the name must match the URL",
  );
  const configMap = await call(server.url, "PUT", "/api/v1/namespaces/x/configmaps/missing", {
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "missing" } },
  });
  assert.equal(configMap.status, 404, "other kinds do not create on update");
});
