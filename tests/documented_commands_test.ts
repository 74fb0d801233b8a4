/**
 * Every `ouroboros doctor` and `ouroboros kuberture` command line the documentation shows runs as
 * written against the in-memory API server: none is refused as a usage error (exit 2), as the
 * README's doctor line once was. What stands in for a real cluster is the only change: `~/.kube/config`
 * is a kubeconfig for the fake server; a kuberture line without `--kubeconfig` (one a pod runs,
 * with its service account) gets one, its config file is a temporary one, and a long-running line
 * gets `--once` (unless it is `--cleanup`, a one-shot run of its own) so it ends after its first pass.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startFakeApiServer } from "./support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "./support/kubeconfig.ts";
import { ROOT, runOuroboros } from "./support/ouroboros_process.ts";
import { tempDir } from "./support/temp_dir.ts";
import { putApiServerSlice } from "./support/api_server_slice.ts";

const DOCUMENTS = [
  "README.md",
  "chart/README.md",
  ...[...Deno.readDirSync(`${ROOT}/docs`)].map((entry) => `docs/${entry.name}`).filter((path) =>
    path.endsWith(".md")
  ),
];

/** The command lines of `text` for `subcommand`: in code spans and in shell blocks, comments cut. */
export function documentedCommands(text: string, subcommand: string): string[] {
  const prefix = `ouroboros ${subcommand} `;
  const found: string[] = [];
  for (const [, span] of text.matchAll(/`(ouroboros [^`]+)`/g)) found.push(span!);
  for (const [, block] of text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    for (const line of block!.split("\n")) found.push(line.replace(/\s+#.*$/, "").trim());
  }
  return [...new Set(found.filter((line) => line.startsWith(prefix)))];
}

Deno.test("documentedCommands: code spans and shell lines of one subcommand, comments cut, each once", () => {
  const text = "Run `ouroboros doctor --kubeconfig ~/.kube/config` or `ouroboros proxy`.\n\n```sh\n" +
    "ouroboros doctor --output=json   # for machines\nouroboros kuberture --once\n" +
    "ouroboros doctor --kubeconfig ~/.kube/config\n```\n";
  assert.deepEqual(documentedCommands(text, "doctor"), [
    "ouroboros doctor --kubeconfig ~/.kube/config",
    "ouroboros doctor --output=json",
  ]);
  assert.deepEqual(documentedCommands(text, "kuberture"), ["ouroboros kuberture --once"]);
});

Deno.test("every documented doctor and kuberture command line runs as written: never a usage error", async () => {
  await using server = await startFakeApiServer({ token: "docs", bookmarkIntervalMs: 0 });
  await using dir = await tempDir("documented-");
  const kubeconfig = await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url, token: "docs" });
  const config = `${dir.path}/config.yaml`;
  await Deno.writeTextFile(
    config,
    'metricsBindAddress: "127.0.0.1:0"\nhealthProbeBindAddress: "127.0.0.1:0"\noutputs:\n' +
      "  - name: api\n    hostname: [api.example.com]\n    serviceName: kuberture-api\n",
  );
  putApiServerSlice(server, ["192.0.2.10"]);
  const lines: { document: string; subcommand: string; line: string }[] = [];
  for (const document of DOCUMENTS) {
    const text = await Deno.readTextFile(`${ROOT}/${document}`);
    for (const subcommand of ["doctor", "kuberture"]) {
      for (const line of documentedCommands(text, subcommand)) lines.push({ document, subcommand, line });
    }
  }
  assert.ok(
    lines.some(({ subcommand }) => subcommand === "doctor"),
    "no doctor line found: is the scan broken?",
  );
  assert.ok(lines.some(({ subcommand }) => subcommand === "kuberture"), "no kuberture line found");
  const failures: string[] = [];
  for (const { document, subcommand, line } of lines) {
    assert.doesNotMatch(line, /[<>|$]/, `${document}: "${line}" is not a plain command line`);
    let args = line.split(/\s+/).slice(1).map((arg) => arg.replace("~/.kube/config", kubeconfig));
    if (subcommand === "kuberture") {
      args = args.map((arg) => arg.startsWith("--config=") ? `--config=${config}` : arg);
      if (!args.some((arg) => arg.startsWith("--kubeconfig"))) args.push(`--kubeconfig=${kubeconfig}`);
      // `--cleanup` is a one-shot run already, and refuses --once.
      if (!args.includes("--once") && !args.includes("--cleanup")) args.push("--once");
    }
    const result = await runOuroboros(args, {
      permissionSet: subcommand,
      env: { POD_NAMESPACE: "ouroboros", KUBERTURE_CONFIG: config, HOSTNAME: "docs" },
    });
    if (result.code === 2) failures.push(`${document}: "${line}" exits 2:\n${result.stderr}`);
  }
  assert.deepEqual(failures, []);
});
