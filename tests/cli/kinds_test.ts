import assert from "node:assert/strict";
import {
  boolean,
  domainName,
  hostName,
  integer,
  namespaceName,
  oneOf,
  port,
  serviceName,
  someOf,
  text,
} from "../../lib/cli/kinds.ts";
import type { ValueKind } from "../../lib/cli/options.ts";
import { isDnsSubdomain } from "../../lib/util/kube_names.ts";

/** Runs a table of raw texts through a kind: a value means accepted as that value, `BAD` refused. */
const BAD = Symbol("refused");
async function table<T>(
  t: Deno.TestContext,
  kind: ValueKind<T>,
  cases: readonly (readonly [string, T | typeof BAD])[],
): Promise<void> {
  for (const [raw, expected] of cases) {
    await t.step(JSON.stringify(raw), () => {
      const parsed = kind.parse(raw);
      if (expected === BAD) {
        assert.equal(
          parsed.ok,
          false,
          `${JSON.stringify(raw)} should be refused, got ${JSON.stringify(parsed)}`,
        );
      } else {
        assert.deepEqual(parsed, { ok: true, value: expected });
      }
    });
  }
}

Deno.test("port accepts 1-65535 only", async (t) => {
  await table(t, port(), [
    ["1", 1],
    ["80", 80],
    ["443", 443],
    ["65535", 65535],
    ["0", BAD],
    ["65536", BAD],
    ["-1", BAD],
    ["+80", BAD],
    ["80.0", BAD],
    ["http", BAD],
    ["", BAD],
    [" 80", BAD],
  ]);
  const zero = port().parse("0");
  assert.ok(!zero.ok && zero.reason === "0 is out of range");
});

Deno.test("integer accepts whole numbers inside its range", async (t) => {
  await table(t, integer({ min: -5, max: 300 }), [
    ["0", 0],
    ["-5", -5],
    ["300", 300],
    ["+7", 7],
    ["301", BAD],
    ["-6", BAD],
    ["1.5", BAD],
    ["1e2", BAD],
    ["", BAD],
  ]);
  assert.equal(integer({ min: 1, max: 86400 }).accepted, "a whole number from 1 to 86400");
});

Deno.test("oneOf matches case-insensitively, returns the listed spelling, and knows aliases", async (t) => {
  const kind = oneOf(["debug", "info", "warn", "error"] as const, { warning: "warn" });
  await table(t, kind, [
    ["info", "info"],
    ["INFO", "info"],
    ["Warn", "warn"],
    ["warning", "warn"],
    ["WARNING", "warn"],
    ["verbose", BAD],
    ["", BAD],
    ["info ", BAD],
  ]);
  assert.equal(kind.accepted, "one of debug, info, warn, error");
  assert.equal(kind.placeholder, "debug|info|warn|error");
});

Deno.test("boolean accepts exactly the spellings of Go's strconv.ParseBool", async (t) => {
  await table(t, boolean(), [
    ...["1", "t", "T", "TRUE", "true", "True"].map((raw) => [raw, true] as const),
    ...["0", "f", "F", "FALSE", "false", "False"].map((raw) => [raw, false] as const),
    ...["yes", "no", "on", "off", "tRUE", "", "2"].map((raw) => [raw, BAD] as const),
  ]);
  assert.equal(boolean().isSwitch, true);
});

Deno.test("text accepts anything, including empty", async (t) => {
  await table(t, text(), [["", ""], ["any thing = at all", "any thing = at all"]]);
});

Deno.test("Service names are RFC 1035 labels; empty means unset", async (t) => {
  await table(t, serviceName(), [
    ["", ""],
    ["ingress-nginx-controller", "ingress-nginx-controller"],
    ["a", "a"],
    ["a".repeat(63), "a".repeat(63)],
    ["a".repeat(64), BAD],
    ["1ingress", BAD], // must start with a letter
    ["Ingress", BAD],
    ["ingress_nginx", BAD],
    ["ingress-", BAD],
    ["ingress.nginx", BAD],
  ]);
});

Deno.test("namespace names are RFC 1123 labels; empty means unset", async (t) => {
  await table(t, namespaceName(), [
    ["", ""],
    ["ingress-nginx", "ingress-nginx"],
    ["1tenant", "1tenant"], // may start with a digit
    ["-ns", BAD],
    ["ns-", BAD],
    ["Kube-System", BAD],
    ["a.b", BAD],
    ["n".repeat(64), BAD],
  ]);
});

Deno.test("domain names are folded to lower case without a trailing dot; empty means unset", async (t) => {
  await table(t, domainName(), [
    ["", ""],
    ["cluster.local", "cluster.local"],
    ["Cozy.Local.", "cozy.local"],
    ["k8s.example.org", "k8s.example.org"],
    ["local", "local"],
    [".", BAD],
    ["cluster..local", BAD],
    [".cluster.local", BAD],
    ["cluster.local..", BAD],
    ["clus_ter.local", BAD],
    ["-cluster.local", BAD],
    [`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}`, BAD], // 255 > 253
  ]);
  assert.ok(isDnsSubdomain(`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`));
});

Deno.test("host names accept DNS names and IP literals; mistyped IPv4 is refused", async (t) => {
  await table(t, hostName(), [
    ["", ""],
    [
      "ingress-nginx-controller.ingress-nginx.svc.cluster.local",
      "ingress-nginx-controller.ingress-nginx.svc.cluster.local",
    ],
    ["Ingress.Example.COM.", "Ingress.Example.COM"],
    ["localhost", "localhost"],
    ["10.0.0.9", "10.0.0.9"],
    ["::1", "::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["1.2.3.256", BAD], // digits and dots only: a typo for an address, not a name
    ["10.0.0", BAD],
    ["010.0.0.1", BAD],
    ["10.0.0.1.", BAD],
    ["1.2.3.4.5", BAD],
    ["not a host", BAD],
    ["under_score.example", BAD],
    ["[::1", BAD],
    ["http://ingress", BAD],
    ["ingress:80", BAD],
  ]);
});

Deno.test("someOf takes a comma-separated, non-empty subset, in the listed order, each once", async (t) => {
  const kinds = someOf(["HTTPRoute", "GRPCRoute", "TLSRoute"] as const);
  await table(t, kinds, [
    ["HTTPRoute,GRPCRoute,TLSRoute", ["HTTPRoute", "GRPCRoute", "TLSRoute"]],
    ["tlsroute", ["TLSRoute"]],
    ["TLSRoute, httproute", ["HTTPRoute", "TLSRoute"]],
    ["GRPCRoute,grpcroute", ["GRPCRoute"]],
    ["", BAD],
    ["HTTPRoute,", BAD],
    ["TCPRoute", BAD],
    ["HTTPRoute TLSRoute", BAD],
  ]);
  assert.deepEqual(kinds.parse("UDPRoute"), { ok: false, reason: 'unknown "UDPRoute"' });
  assert.equal(kinds.placeholder, "HTTPRoute,GRPCRoute,TLSRoute");
});
