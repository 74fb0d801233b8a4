/**
 * The demo's kuberture part: `ouroboros kuberture` as a child process (exactly the `kuberture`
 * permission set) publishing the API server's addresses, taken from the `default/kubernetes`
 * EndpointSlice, as the annotations of a headless Service that external-dns reads.
 *
 * Decisions: one IPv4 output, so the target is one family and easy to read; leader election off
 * (the controller part already shows an election); both listeners on 127.0.0.1 port 0 so that the
 * demo never clashes with a port in use.
 *
 * Effects: writes a config file into a temporary directory (removed on dispose) and starts a child
 * process; the readers are pure over the fake API server's state. The EndpointSlice it reads is
 * `putApiServerSlice`'s (tests/support/api_server_slice.ts).
 *
 * @module
 */

import type { FakeApiServer } from "../support/fake_apiserver/mod.ts";
import { type KubertureProcess, type LogLine, startKuberture } from "../support/ouroboros_process.ts";
import { tempDir } from "../support/temp_dir.ts";

/** Where kuberture runs (`POD_NAMESPACE`) and so where it writes its Service. */
export const KUBERTURE_NAMESPACE = "kuberture";
/** The Service the demo's one output publishes. */
export const KUBERTURE_SERVICE = "kuberture-api";
/** The hostname external-dns is asked to publish. */
export const API_HOSTNAME = "api.k8s.example.com";
/** external-dns's annotation prefix, kuberture's default. */
export const DNS_PREFIX = "external-dns.alpha.kubernetes.io/";

/** The demo's config file: one output, listeners on free loopback ports. */
export const KUBERTURE_CONFIG = [
  'metricsBindAddress: "127.0.0.1:0"',
  'healthProbeBindAddress: "127.0.0.1:0"',
  "outputs:",
  "  - name: api",
  `    hostname: [${API_HOSTNAME}]`,
  `    serviceName: ${KUBERTURE_SERVICE}`,
  "",
].join("\n");

/** What the demo shows of the published Service. */
export interface PublishedService {
  readonly clusterIP: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** The Service kuberture wrote, or `undefined` before it has written it. */
export function publishedService(server: FakeApiServer): PublishedService | undefined {
  const service = server.get("v1", "Service", KUBERTURE_NAMESPACE, KUBERTURE_SERVICE);
  if (service === undefined) return undefined;
  const metadata = service.metadata as {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  return {
    clusterIP: (service.spec as { clusterIP?: string } | undefined)?.clusterIP,
    labels: metadata.labels ?? {},
    annotations: metadata.annotations ?? {},
  };
}

/** The Service's `target` annotation, or `undefined` when there is no Service or no target. */
export function publishedTarget(server: FakeApiServer): string | undefined {
  return publishedService(server)?.annotations[`${DNS_PREFIX}target`];
}

/** Whether the published Service's `managedFields` hold an `Apply` entry of `manager`. */
export function appliedBy(server: FakeApiServer, manager: string): boolean {
  const service = server.get("v1", "Service", KUBERTURE_NAMESPACE, KUBERTURE_SERVICE);
  const entries =
    (service?.metadata as { managedFields?: { manager?: string; operation?: string }[] } | undefined)
      ?.managedFields ?? [];
  return entries.some((entry) => entry.manager === manager && entry.operation === "Apply");
}

/** A kuberture log line as `level msg key=value …`, with the fields a reader of the demo needs. */
export function kubertureLogText(line: LogLine): string {
  const fields = ["output", "name", "addresses", "signal"].filter((key) => line[key] !== undefined)
    .map((key) => `${key}=${String(line[key])}`);
  return `${line.level} ${line.msg}${fields.length === 0 ? "" : " " + fields.join(" ")}`;
}

/** A running kuberture and its config file; disposing kills it (if still running) and removes the file. */
export interface KuberturePublisher extends AsyncDisposable {
  readonly process: KubertureProcess;
  /** The config file's path. */
  readonly config: string;
}

/**
 * Writes {@linkcode KUBERTURE_CONFIG} into a temporary directory and starts
 * `ouroboros kuberture --kubeconfig=… --config=… --leader-elect=false` as pod `kuberture-demo` in
 * {@linkcode KUBERTURE_NAMESPACE}; resolves once it has logged "kuberture starting".
 */
export async function startPublisher(kubeconfig: string): Promise<KuberturePublisher> {
  const dir = await tempDir("ouroboros-kuberture-demo-");
  try {
    const config = `${dir.path}/config.yaml`;
    await Deno.writeTextFile(config, KUBERTURE_CONFIG);
    const process = await startKuberture(
      [`--kubeconfig=${kubeconfig}`, `--config=${config}`, "--leader-elect=false"],
      { env: { POD_NAMESPACE: KUBERTURE_NAMESPACE, HOSTNAME: "kuberture-demo" } },
    );
    return {
      process,
      config,
      async [Symbol.asyncDispose]() {
        await process[Symbol.asyncDispose]();
        await dir[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    await dir[Symbol.asyncDispose]();
    throw error;
  }
}
