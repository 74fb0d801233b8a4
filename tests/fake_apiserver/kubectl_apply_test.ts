/**
 * The real kubectl 1.35's server-side apply against the fake API server: what kubectl prints and
 * what the fake stores must be what a real cluster would show, so the fake's `managedFields`,
 * conflicts and forced take-overs can be trusted by the tests that use them.
 */

import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { ignoreWithoutKubectl as ignore, ok, withKubectl } from "./kubectl_run.ts";

/** A headless Service as kuberture writes it, as YAML. */
function serviceYaml(target: string, extra = ""): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: kuberture
  labels:
    app.kubernetes.io/managed-by: kuberture
  annotations:
    external-dns.alpha.kubernetes.io/target: "${target}"
${extra}spec:
  clusterIP: None
`;
}

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  time?: string;
}

function owners(
  printed: { metadata: { managedFields?: Entry[] } },
): [string, string, Record<string, unknown>][] {
  return (printed.metadata.managedFields ?? []).map((
    entry,
  ) => [entry.manager, entry.operation, entry.fieldsV1]);
}

const TARGET = "f:external-dns.alpha.kubernetes.io/target";

Deno.test({
  name:
    "kubectl apply --server-side creates, a repeat changes nothing, and get --show-managed-fields shows the applier",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    await Deno.writeTextFile(`${dir}/svc.yaml`, serviceYaml("192.0.2.1"));
    const apply = ["apply", "--server-side", "--validate=false", "-f", "svc.yaml"];
    assert.match(ok(await kubectl(apply)), /^service\/api serverside-applied$/m);
    const created = server.get("v1", "Service", "kuberture", "api")!;
    assert.match(ok(await kubectl(apply)), /^service\/api serverside-applied$/m);
    assert.deepEqual(server.get("v1", "Service", "kuberture", "api"), created, "the repeat wrote nothing");
    const patches = server.audit.filter((entry) => entry.method === "PATCH");
    assert.deepEqual(patches.map((entry) => [entry.status, entry.query.fieldManager, entry.query.force]), [
      [201, "kubectl", "false"],
      [200, "kubectl", "false"],
    ]);

    const printed = parseYaml(
      ok(await kubectl(["get", "svc", "api", "-n", "kuberture", "-o", "yaml", "--show-managed-fields"])),
    );
    assert.deepEqual(owners(printed), [["kubectl", "Apply", {
      "f:metadata": {
        "f:annotations": { [TARGET]: {} },
        "f:labels": { "f:app.kubernetes.io/managed-by": {} },
      },
      "f:spec": { "f:clusterIP": {} },
    }]]);
    assert.equal(printed.metadata.managedFields[0].apiVersion, "v1");
    assert.equal(printed.metadata.managedFields[0].fieldsType, "FieldsV1");
    assert.match(printed.metadata.managedFields[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const plain = parseYaml(ok(await kubectl(["get", "svc", "api", "-n", "kuberture", "-o", "yaml"])));
    assert.equal(plain.metadata.managedFields, undefined, "kubectl hides them without the flag");
  });
});

Deno.test({
  name: "kubectl apply --server-side: a field left out of the manifest is removed from the object",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    const file = `${dir}/svc.yaml`;
    const apply = ["apply", "--server-side", "--validate=false", "-f", file];
    await Deno.writeTextFile(
      file,
      serviceYaml("192.0.2.1", '    external-dns.alpha.kubernetes.io/ttl: "60"\n'),
    );
    ok(await kubectl(apply));
    await Deno.writeTextFile(file, serviceYaml("192.0.2.1"));
    ok(await kubectl(apply));
    const stored = server.get("v1", "Service", "kuberture", "api")!;
    assert.deepEqual((stored.metadata as { annotations: unknown }).annotations, {
      "external-dns.alpha.kubernetes.io/target": "192.0.2.1",
    });
  });
});

Deno.test({
  name:
    "kubectl apply --server-side: another manager's different value is refused, --force-conflicts takes it over",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    await Deno.writeTextFile(`${dir}/mine.yaml`, serviceYaml("192.0.2.1"));
    await Deno.writeTextFile(`${dir}/theirs.yaml`, serviceYaml("198.51.100.7"));
    ok(await kubectl(["apply", "--server-side", "--validate=false", "-f", "mine.yaml"]));
    const theirs = [
      "apply",
      "--server-side",
      "--validate=false",
      "--field-manager=other",
      "-f",
      "theirs.yaml",
    ];

    const refused = await kubectl(theirs);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^error: Apply failed with 1 conflict: conflict with "kubectl": \.metadata\.annotations\.external-dns\.alpha\.kubernetes\.io\/target$/m,
    );
    assert.match(refused.stderr, /Please review the fields above--they currently have other managers/);
    const target = () =>
      (server.get("v1", "Service", "kuberture", "api")!.metadata as { annotations: Record<string, string> })
        .annotations["external-dns.alpha.kubernetes.io/target"];
    assert.equal(target(), "192.0.2.1", "the refused apply changed nothing");

    assert.match(ok(await kubectl([...theirs, "--force-conflicts"])), /^service\/api serverside-applied$/m);
    assert.equal(target(), "198.51.100.7");
    const printed = parseYaml(
      ok(await kubectl(["get", "svc", "api", "-n", "kuberture", "-o", "yaml", "--show-managed-fields"])),
    );
    assert.deepEqual(owners(printed), [
      ["kubectl", "Apply", {
        "f:metadata": { "f:labels": { "f:app.kubernetes.io/managed-by": {} } },
        "f:spec": { "f:clusterIP": {} },
      }],
      ["other", "Apply", {
        "f:metadata": {
          "f:annotations": { [TARGET]: {} },
          "f:labels": { "f:app.kubernetes.io/managed-by": {} },
        },
        "f:spec": { "f:clusterIP": {} },
      }],
    ], "the target moved to other; the fields both set alike are shared");
  });
});

Deno.test({
  name:
    "a Service kuberture wrote with an update conflicts with its apply until forced, then the apply owns it",
  ignore,
}, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    await Deno.writeTextFile(`${dir}/old.yaml`, serviceYaml("192.0.2.1"));
    await Deno.writeTextFile(`${dir}/new.yaml`, serviceYaml("192.0.2.9"));
    assert.match(
      ok(await kubectl(["create", "--validate=false", "--field-manager=kuberture", "-f", "old.yaml"])),
      /service\/api created/,
    );
    const apply = [
      "apply",
      "--server-side",
      "--validate=false",
      "--field-manager=kuberture",
      "-f",
      "new.yaml",
    ];
    const refused = await kubectl(apply);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Apply failed with 1 conflict: conflict with "kuberture" using v1: \.metadata\.annotations\./,
    );

    ok(await kubectl([...apply, "--force-conflicts"]));
    const printed = parseYaml(
      ok(await kubectl(["get", "svc", "api", "-n", "kuberture", "-o", "yaml", "--show-managed-fields"])),
    );
    assert.equal(printed.metadata.annotations["external-dns.alpha.kubernetes.io/target"], "192.0.2.9");
    const [apply_, update] = owners(printed);
    assert.deepEqual(apply_?.slice(0, 2), ["kuberture", "Apply"]);
    assert.deepEqual(
      (apply_?.[2]["f:metadata"] as Record<string, unknown>)["f:annotations"],
      { [TARGET]: {} },
      "the applier owns the target now",
    );
    assert.deepEqual(update?.slice(0, 2), ["kuberture", "Update"]);
    assert.deepEqual(
      update?.[2],
      {
        "f:metadata": { "f:annotations": {}, "f:labels": { ".": {}, "f:app.kubernetes.io/managed-by": {} } },
        "f:spec": { "f:clusterIP": {} },
      },
      "the update keeps what it set alike (shared) and the annotations map, not the target",
    );
  });
});

Deno.test({ name: "kubectl apply --server-side --dry-run=server stores nothing", ignore }, async () => {
  await using server = await startFakeApiServer();
  await withKubectl(server, async (kubectl, _spawn, dir) => {
    await Deno.writeTextFile(`${dir}/svc.yaml`, serviceYaml("192.0.2.1"));
    assert.match(
      ok(await kubectl(["apply", "--server-side", "--dry-run=server", "--validate=false", "-f", "svc.yaml"])),
      /service\/api serverside-applied \(server dry run\)/,
    );
    assert.equal(server.get("v1", "Service", "kuberture", "api"), undefined);
  });
});
