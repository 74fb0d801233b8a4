/**
 * The real external-dns, built from its pinned Go module, run as a cluster runs it: with its own
 * ServiceAccount identity (a kubeconfig of the stack's token for it, RBAC judged by the real
 * apiserver), reading the API through `--source=crd` (DNSEndpoints) or `--source=service`
 * (annotated Services), and writing a real BIND through the rfc2136 provider (TSIG-signed
 * updates, and TSIG-signed AXFR to read the zone back), with the TXT registry marking what it
 * owns under its `--txt-owner-id`.
 *
 * Choices a reader could not guess:
 * - `--interval=1s` and `--events`: a change is published within a second or two, so a
 *   scenario's deadline measures external-dns's work, not its idle timer.
 * - The DNSEndpoint CRD is read at run time from external-dns's own module source in the Go
 *   module cache (`config/crd/standard/`), the one its binary was built from: the suite commits
 *   no copy of it.
 * - `--metrics-address` on a free loopback port (the default `:7979` would clash between two
 *   instances); ready means `/healthz` answers there.
 *
 * Effects: processes, `go list` (to find the module), files.
 *
 * @module
 */

import { parse } from "yaml";
import { freePort } from "../support/daemons.ts";
import type { Bind } from "./bind.ts";
import { BUILD_MODULES, ensureBuilt, goTool } from "./build.ts";
import { type ComponentProcess, startComponent } from "./component_process.ts";
import type { PeerAccount, Stack } from "./stack.ts";
import { GO_COMPONENTS } from "./versions.ts";

/** The external-dns component of {@linkcode GO_COMPONENTS}. */
const EXTERNAL_DNS = GO_COMPONENTS.find((component) => component.name === "external-dns")!;

/** What external-dns's own chart grants it for the sources the suite uses (crd and service). */
export function externalDnsAccount(namespace: string, name: string): PeerAccount {
  return {
    namespace,
    name,
    rules: [
      { apiGroups: [""], resources: ["nodes"], verbs: ["list", "watch"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "watch", "list"] },
      { apiGroups: [""], resources: ["services"], verbs: ["get", "watch", "list"] },
      { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["get", "watch", "list"] },
      { apiGroups: ["externaldns.k8s.io"], resources: ["dnsendpoints"], verbs: ["get", "watch", "list"] },
      { apiGroups: ["externaldns.k8s.io"], resources: ["dnsendpoints/status"], verbs: ["*"] },
    ],
  };
}

/** The folder of the external-dns module the binary was built from (the Go module cache). */
export async function externalDnsModuleDir(): Promise<string> {
  const output = await new Deno.Command(goTool(), {
    args: ["list", "-mod=readonly", "-m", "-json", EXTERNAL_DNS.module],
    cwd: `${BUILD_MODULES}/${EXTERNAL_DNS.buildModule}`,
    env: { GOTOOLCHAIN: "local", GOFLAGS: "-buildvcs=false" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(`go list ${EXTERNAL_DNS.module}: ${new TextDecoder().decode(output.stderr)}`);
  }
  const info = JSON.parse(text) as { Dir?: string; Version?: string };
  if (info.Dir === undefined) {
    throw new Error(`go list printed no Dir for ${EXTERNAL_DNS.module} (is it downloaded?): ${text}`);
  }
  if (info.Version !== EXTERNAL_DNS.version) {
    throw new Error(
      `the build module resolves ${EXTERNAL_DNS.module}@${info.Version}, not ${EXTERNAL_DNS.version}`,
    );
  }
  return info.Dir;
}

/** The DNSEndpoint CRD, as external-dns's module ships it. */
export async function dnsEndpointCrd(): Promise<Record<string, unknown>> {
  const path = `${await externalDnsModuleDir()}/config/crd/standard/dnsendpoints.externaldns.k8s.io.yaml`;
  const crd = parse(await Deno.readTextFile(path)) as Record<string, unknown>;
  if (crd.kind !== "CustomResourceDefinition") throw new Error(`${path} holds no CustomResourceDefinition`);
  return crd;
}

/** How one external-dns instance is started. */
export interface ExternalDnsOptions {
  /** Its name: log file and reports (default `external-dns`). */
  readonly name?: string;
  /** Its ServiceAccount (a peer of the stack, see {@linkcode externalDnsAccount}). */
  readonly account: { readonly namespace: string; readonly name: string };
  readonly sources: readonly ("crd" | "service")[];
  /** The TXT registry's owner id. */
  readonly ownerId: string;
  /** `--annotation-prefix` (external-dns's default when left out). */
  readonly annotationPrefix?: string;
  /** The zones of `bind` it manages (default all of them). */
  readonly zones?: readonly string[];
  /** Appended flags. */
  readonly extraArgs?: readonly string[];
}

/** A running external-dns. */
export interface ExternalDns extends AsyncDisposable {
  readonly process: ComponentProcess;
  readonly args: readonly string[];
  /** Runs `wait`; when it fails, rethrows with external-dns's last lines appended. */
  explain<T>(wait: () => Promise<T>): Promise<T>;
}

/** The command line for an instance (everything but the kubeconfig path is decided here). */
export function externalDnsArgs(
  options: ExternalDnsOptions,
  bind: Pick<Bind, "host" | "port" | "zones" | "key">,
  kubeconfig: string,
  metricsPort: number,
): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    ...options.sources.map((source) => `--source=${source}`),
    "--provider=rfc2136",
    `--rfc2136-host=${bind.host}`,
    `--rfc2136-port=${bind.port}`,
    ...(options.zones ?? bind.zones).map((zone) => `--rfc2136-zone=${zone}`),
    `--rfc2136-tsig-keyname=${bind.key.name}`,
    `--rfc2136-tsig-secret=${bind.key.secret}`,
    `--rfc2136-tsig-secret-alg=${bind.key.algorithm}`,
    "--rfc2136-tsig-axfr",
    "--registry=txt",
    `--txt-owner-id=${options.ownerId}`,
    "--policy=sync",
    "--interval=1s",
    "--events",
    "--min-event-sync-interval=1s",
    `--metrics-address=127.0.0.1:${metricsPort}`,
    "--log-format=json",
    "--log-level=debug",
    ...(options.annotationPrefix === undefined ? [] : [`--annotation-prefix=${options.annotationPrefix}`]),
    ...(options.extraArgs ?? []),
  ];
}

/** Starts external-dns and waits until its health endpoint answers. */
export async function startExternalDns(
  stack: Stack,
  bind: Bind,
  options: ExternalDnsOptions,
): Promise<ExternalDns> {
  const metricsPort = freePort();
  const kubeconfig = await stack.kubeconfig(options.account.namespace, options.account.name);
  const args = externalDnsArgs(options, bind, kubeconfig, metricsPort);
  const process = await startComponent({
    name: options.name ?? "external-dns",
    command: await ensureBuilt("external-dns"),
    args,
    dir: stack.dir,
    readyTimeoutMs: 60_000,
    ready: async () => {
      const response = await fetch(`http://127.0.0.1:${metricsPort}/healthz`);
      await response.body?.cancel();
      return response.ok;
    },
  });
  return {
    process,
    args,
    async explain<T>(wait: () => Promise<T>): Promise<T> {
      try {
        return await wait();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `${reason}\n${process.failure(process.exited() ? "had exited" : "is running").message}`,
          {
            cause: error,
          },
        );
      }
    },
    [Symbol.asyncDispose]: () => process.stop(),
  };
}
