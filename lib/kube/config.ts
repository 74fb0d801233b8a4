/**
 * How to reach the API server and who to be, from the service account or a kubeconfig: the
 * effectful half of configuration (`kubeconfig.ts` parses).
 *
 * Effects: reads files; imports the YAML parser only when there is a kubeconfig to read.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { Log } from "../util/logging.ts";
import { KubeConfigError } from "./config_error.ts";
import {
  basicAuth,
  bearer,
  type ClientCertificate,
  type CredentialSource,
  staticCredentials,
} from "./credentials.ts";
import { ExecCredentialSource } from "./exec_plugin.ts";
import { parseKubeconfig, type PemSource, resolvePath } from "./kubeconfig.ts";
import { selectContext } from "./select_context.ts";
import { type TokenFileOptions, TokenFileSource } from "./token_file.ts";
import { errorMessage } from "../util/error_message.ts";

/** Everything needed to talk to one API server. */
export interface ClusterConfig {
  /** Without a trailing slash. */
  readonly server: string;
  /** PEM certificates trusted in addition to the system roots. */
  readonly caCerts: readonly string[];
  /** A static one (exec plugins may supply one per credential instead). */
  readonly clientCertificate?: ClientCertificate;
  readonly credentials?: CredentialSource;
  readonly proxyUrl?: string;
  /** The default namespace: the pod's own, or the context's. */
  readonly namespace: string;
  /** For the start-up log: `in-cluster` or `kubeconfig …, context …`. */
  readonly source: string;
}

/** The service-account files the kubelet mounts into every pod. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Options for {@linkcode loadInClusterConfig}. */
export interface InClusterOptions {
  /** Only the two `KUBERNETES_SERVICE_*` variables are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Overrides for tests. @default the files under {@linkcode SERVICE_ACCOUNT_DIR} */
  readonly tokenPath?: string;
  readonly caPath?: string;
  readonly namespacePath?: string;
  readonly clock?: Clock;
  readonly log?: Log;
}

async function readFile(path: string, what: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    const problem = error instanceof Deno.errors.NotFound
      ? "does not exist"
      : `cannot be read: ${errorMessage(error)}`;
    throw new KubeConfigError(`${what} ${path} ${problem}`, { cause: error });
  }
}

async function readPem(source: PemSource, what: string): Promise<string> {
  if (source.kind === "data") return source.pem;
  const pem = await readFile(source.path, what);
  if (!pem.includes("-----BEGIN ")) throw new KubeConfigError(`${what} ${source.path} is not PEM`);
  return pem;
}

function sourceOptions(options: { readonly clock?: Clock; readonly log?: Log }): TokenFileOptions {
  return {
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.log === undefined ? {} : { log: options.log }),
  };
}

/** `https://host:port`, with an IPv6 literal in brackets. */
export function inClusterServer(host: string, port: string): string {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `https://${bracketed}:${port}`;
}

/** Configuration from the pod's service account; the token is read now, to fail at start-up. */
export async function loadInClusterConfig(options: InClusterOptions): Promise<ClusterConfig> {
  const host = options.env.KUBERNETES_SERVICE_HOST ?? "";
  const port = options.env.KUBERNETES_SERVICE_PORT ?? "";
  if (host === "" || port === "") {
    throw new KubeConfigError(
      "not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set " +
        "(or pass --kubeconfig)",
    );
  }
  if (!/^\d+$/.test(port)) throw new KubeConfigError(`KUBERNETES_SERVICE_PORT is not a port number: ${port}`);
  const tokenPath = options.tokenPath ?? `${SERVICE_ACCOUNT_DIR}/token`;
  const caPath = options.caPath ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`;
  const namespacePath = options.namespacePath ?? `${SERVICE_ACCOUNT_DIR}/namespace`;
  const ca = await readPem({ kind: "file", path: caPath }, "service-account CA file");
  const credentials = new TokenFileSource(tokenPath, sourceOptions(options));
  try {
    await credentials.current();
  } catch (error) {
    throw new KubeConfigError(`service-account token: ${errorMessage(error)}`, { cause: error });
  }
  let namespace = "default";
  try {
    namespace = (await Deno.readTextFile(namespacePath)).trim() || "default";
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new KubeConfigError(
        `service-account namespace file ${namespacePath} cannot be read: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  }
  return { server: inClusterServer(host, port), caCerts: [ca], credentials, namespace, source: "in-cluster" };
}

/** Options for {@linkcode loadKubeconfig}. */
export interface KubeconfigOptions {
  readonly context?: string;
  /** What a relative `path` is taken from. @default Deno.cwd() */
  readonly cwd?: string;
  readonly clock?: Clock;
  /** Wall-clock time for exec credential expiry. @default Date.now */
  readonly now?: () => number;
  readonly log?: Log;
}

/** Configuration from a kubeconfig, every file read now; no `insecure-skip-tls-verify`. */
export async function loadKubeconfig(path: string, options: KubeconfigOptions = {}): Promise<ClusterConfig> {
  const absolute = resolvePath(options.cwd ?? Deno.cwd(), path);
  const baseDir = absolute.slice(0, absolute.lastIndexOf("/")) || "/";
  const { parse } = await import("yaml");
  const parsed = parseKubeconfig(await readFile(absolute, "kubeconfig"), { baseDir, parseYaml: parse });
  if (!parsed.ok) throw new KubeConfigError(`${absolute}: ${parsed.reason}`);
  const selected = selectContext(parsed.value, options.context);
  if (!selected.ok) throw new KubeConfigError(`${absolute}: ${selected.reason}`);
  const { cluster, user, context, namespace } = selected.value;
  const where = `${absolute}: cluster ${JSON.stringify(cluster.name)}`;
  const https = cluster.server.startsWith("https:");
  if (https && cluster.insecureSkipTlsVerify) {
    throw new KubeConfigError(
      `${where} sets insecure-skip-tls-verify, which is not supported: Deno's HTTP client cannot skip ` +
        "certificate verification per connection. Set certificate-authority or certificate-authority-data " +
        "to the cluster's CA instead.",
    );
  }
  if (cluster.tlsServerName !== undefined) {
    throw new KubeConfigError(
      `${where} sets tls-server-name, which is not supported: Deno's HTTP client verifies the certificate ` +
        "against the host of the server URL. Use a server URL whose host the certificate names.",
    );
  }
  const caCerts = cluster.certificateAuthority === undefined
    ? []
    : [await readPem(cluster.certificateAuthority, `${where} certificate-authority`)];

  const userWhere = `${absolute}: user ${JSON.stringify(user?.name ?? "")}`;
  let clientCertificate: ClientCertificate | undefined;
  let credentials: CredentialSource | undefined;
  if (user !== undefined) {
    if (user.authProvider !== undefined) {
      throw new KubeConfigError(
        `${userWhere} uses auth-provider ${
          JSON.stringify(user.authProvider)
        }, which was removed from Kubernetes ` +
          "clients; use its exec credential plugin instead",
      );
    }
    const methods = [
      user.exec === undefined ? "" : "exec",
      user.token === undefined && user.tokenFile === undefined ? "" : "token",
      user.username === undefined ? "" : "username/password",
    ].filter((method) => method !== "");
    if (methods.length > 1) {
      throw new KubeConfigError(`${userWhere} sets more than one way to authenticate: ${methods.join(", ")}`);
    }
    if (user.clientCertificate !== undefined && user.clientKey !== undefined) {
      clientCertificate = {
        cert: await readPem(user.clientCertificate, `${userWhere} client-certificate`),
        key: await readPem(user.clientKey, `${userWhere} client-key`),
      };
    }
    if (user.exec !== undefined) {
      credentials = new ExecCredentialSource(user.exec, {
        cluster: {
          server: cluster.server,
          ...(caCerts[0] === undefined ? {} : { certificateAuthorityPem: caCerts[0] }),
          insecureSkipTlsVerify: cluster.insecureSkipTlsVerify,
        },
        ...sourceOptions(options),
        ...(options.now === undefined ? {} : { now: options.now }),
      });
    } else if (user.tokenFile !== undefined) {
      // client-go: a readable token file takes precedence over an inline token.
      const source = new TokenFileSource(user.tokenFile, sourceOptions(options));
      try {
        await source.current();
        credentials = source;
      } catch (error) {
        if (user.token === undefined) {
          throw new KubeConfigError(`${userWhere}: ${errorMessage(error)}`, { cause: error });
        }
        credentials = staticCredentials({ authorization: bearer(user.token) }, `token of user ${user.name}`);
      }
    } else if (user.token !== undefined) {
      credentials = staticCredentials({ authorization: bearer(user.token) }, `token of user ${user.name}`);
    } else if (user.username !== undefined) {
      credentials = staticCredentials(
        { authorization: basicAuth(user.username, user.password ?? "") },
        `basic auth of user ${user.name}`,
      );
    }
  }
  return {
    server: cluster.server,
    caCerts,
    ...(clientCertificate === undefined ? {} : { clientCertificate }),
    ...(credentials === undefined ? {} : { credentials }),
    ...(cluster.proxyUrl === undefined ? {} : { proxyUrl: cluster.proxyUrl }),
    namespace,
    source: `kubeconfig ${absolute}, context ${context.name}`,
  };
}
