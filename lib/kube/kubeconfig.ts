/**
 * Parses kubeconfig YAML into typed data, with errors naming the wrong entry and field. Relative
 * paths are resolved against the kubeconfig's folder, as kubectl does.
 *
 * Pure: no I/O (files and plugins are `config.ts`'s).
 *
 * @module
 */

import { FieldError, Fields } from "../resources/fields.ts";
import { asObject, type Decoded } from "../resources/json.ts";

/** PEM material given inline (`*-data`, base64-decoded here) or as a file to read. */
export type PemSource =
  | { readonly kind: "data"; readonly pem: string }
  | { readonly kind: "file"; readonly path: string };

/** A `clusters[].cluster` entry. */
export interface KubeconfigCluster {
  readonly name: string;
  readonly server: string;
  readonly certificateAuthority?: PemSource;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly proxyUrl?: string;
}

/** The ExecCredential API versions understood. */
export const EXEC_API_VERSIONS = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
] as const;

/** One of {@linkcode EXEC_API_VERSIONS}. */
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** A `users[].user.exec` credential plugin. */
export interface ExecConfig {
  readonly apiVersion: ExecApiVersion;
  /** A program name looked up in PATH, or a path (relative ones already resolved). */
  readonly command: string;
  readonly args: readonly string[];
  /** Added to our environment. */
  readonly env: readonly { readonly name: string; readonly value: string }[];
  /** Pass the cluster's server and CA in `KUBERNETES_EXEC_INFO`. */
  readonly provideClusterInfo: boolean;
  /** `Never`, `IfAvailable` or `Always`; we never have a terminal, so `Always` cannot work. */
  readonly interactiveMode: string;
  readonly installHint?: string;
}

/** A `users[].user` entry: how to authenticate. */
export interface KubeconfigUser {
  readonly name: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly clientCertificate?: PemSource;
  readonly clientKey?: PemSource;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: ExecConfig;
  /** Set when the entry uses the removed `auth-provider` mechanism (its name, e.g. `gcp`). */
  readonly authProvider?: string;
}

/** A `contexts[].context` entry. */
export interface KubeconfigContext {
  readonly name: string;
  readonly cluster: string;
  /** Empty: no credentials. */
  readonly user: string;
  /** Empty: `default`. */
  readonly namespace: string;
}

/** A whole kubeconfig file. */
export interface Kubeconfig {
  /** Empty when unset. */
  readonly currentContext: string;
  readonly clusters: ReadonlyMap<string, KubeconfigCluster>;
  readonly users: ReadonlyMap<string, KubeconfigUser>;
  readonly contexts: ReadonlyMap<string, KubeconfigContext>;
}

interface ClusterWire {
  server?: string;
  "certificate-authority"?: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  "proxy-url"?: string;
}

interface ExecWire {
  apiVersion?: string;
  command?: string;
  args?: string[];
  env?: { name?: string; value?: string }[];
  provideClusterInfo?: boolean;
  interactiveMode?: string;
  installHint?: string;
}

interface UserWire {
  token?: string;
  tokenFile?: string;
  "client-certificate"?: string;
  "client-certificate-data"?: string;
  "client-key"?: string;
  "client-key-data"?: string;
  username?: string;
  password?: string;
  exec?: ExecWire;
  "auth-provider"?: { name?: string };
}

interface ContextWire {
  cluster?: string;
  user?: string;
  namespace?: string;
}

interface ConfigWire {
  "current-context"?: string;
  clusters?: { name?: string; cluster?: ClusterWire }[];
  users?: { name?: string; user?: UserWire }[];
  contexts?: { name?: string; context?: ContextWire }[];
}

/** `path` made absolute against `baseDir` (POSIX), without `.` and `..` segments. */
export function resolvePath(baseDir: string, path: string): string {
  if (path.startsWith("/")) return path;
  const segments: string[] = [];
  for (const segment of `${baseDir}/${path}`.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

/** Decodes base64 text to a string, or throws a {@linkcode FieldError} naming `path`. */
function base64Text(value: string, path: string): string {
  let binary: string;
  try {
    binary = atob(value.replace(/\s+/g, ""));
  } catch {
    throw new FieldError(path, "is not valid base64");
  }
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function pemSource<W>(
  fields: Fields<W>,
  fileField: Extract<keyof W, string>,
  dataField: Extract<keyof W, string>,
  baseDir: string,
): PemSource | undefined {
  // kubectl's rule: inline data wins over a file path when both are set.
  const data = fields.optionalString(dataField);
  if (data !== undefined && data !== "") {
    const pem = base64Text(data, `${fields.path}.${dataField}`);
    if (!pem.includes("-----BEGIN ")) {
      throw new FieldError(`${fields.path}.${dataField}`, "does not decode to PEM (no -----BEGIN line)");
    }
    return { kind: "data", pem };
  }
  const file = fields.optionalString(fileField);
  return file === undefined || file === "" ? undefined : { kind: "file", path: resolvePath(baseDir, file) };
}

function named<E>(entries: Fields<E>[], section: string): { name: string; entry: Fields<E> }[] {
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const name = entry.optionalString("name" as Extract<keyof E, string>);
    if (name === undefined || name === "") throw new FieldError(`${section}[${i}].name`, "is missing");
    if (seen.has(name)) throw new FieldError(`${section}[${i}]`, `repeats the name ${JSON.stringify(name)}`);
    seen.add(name);
    return { name, entry: entry.withPath(`${section}[${JSON.stringify(name)}]`) };
  });
}

function parseCluster(name: string, fields: Fields<ClusterWire>, baseDir: string): KubeconfigCluster {
  const server = fields.string("server");
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new FieldError(`${fields.path}.server`, `is not a URL: ${JSON.stringify(server)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new FieldError(
      `${fields.path}.server`,
      `must be an https:// or http:// URL, not ${JSON.stringify(server)}`,
    );
  }
  const certificateAuthority = pemSource(
    fields,
    "certificate-authority",
    "certificate-authority-data",
    baseDir,
  );
  const tlsServerName = fields.optionalString("tls-server-name");
  const proxyUrl = fields.optionalString("proxy-url");
  return {
    name,
    server: server.replace(/\/+$/, ""),
    ...(certificateAuthority === undefined ? {} : { certificateAuthority }),
    insecureSkipTlsVerify: fields.optionalBoolean("insecure-skip-tls-verify") ?? false,
    ...(tlsServerName === undefined || tlsServerName === "" ? {} : { tlsServerName }),
    ...(proxyUrl === undefined || proxyUrl === "" ? {} : { proxyUrl }),
  };
}

function parseExec(fields: Fields<ExecWire>, baseDir: string): ExecConfig {
  const apiVersion = fields.string("apiVersion");
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    throw new FieldError(
      `${fields.path}.apiVersion`,
      `is ${JSON.stringify(apiVersion)}; supported: ${EXEC_API_VERSIONS.join(", ")}`,
    );
  }
  const command = fields.string("command");
  const installHint = fields.optionalString("installHint");
  return {
    apiVersion: apiVersion as ExecApiVersion,
    // As kubectl: a command with a slash is relative to the kubeconfig; a bare name uses PATH.
    command: command.includes("/") ? resolvePath(baseDir, command) : command,
    args: fields.strings("args"),
    env: fields.objects("env").map((entry) => ({
      name: entry.string("name"),
      value: entry.optionalString("value") ?? "",
    })),
    provideClusterInfo: fields.optionalBoolean("provideClusterInfo") ?? false,
    interactiveMode: fields.optionalString("interactiveMode") || "IfAvailable",
    ...(installHint === undefined || installHint === "" ? {} : { installHint }),
  };
}

function parseUser(name: string, fields: Fields<UserWire>, baseDir: string): KubeconfigUser {
  const token = fields.optionalString("token");
  const tokenFile = fields.optionalString("tokenFile");
  const clientCertificate = pemSource(fields, "client-certificate", "client-certificate-data", baseDir);
  const clientKey = pemSource(fields, "client-key", "client-key-data", baseDir);
  if ((clientCertificate === undefined) !== (clientKey === undefined)) {
    throw new FieldError(
      fields.path,
      "sets a client certificate without its key, or a key without its certificate",
    );
  }
  const username = fields.optionalString("username");
  const password = fields.optionalString("password");
  const exec = fields.has("exec") ? parseExec(fields.object("exec"), baseDir) : undefined;
  const authProvider = fields.has("auth-provider")
    ? fields.object("auth-provider").optionalString("name") || "unnamed"
    : undefined;
  return {
    name,
    ...(token === undefined || token === "" ? {} : { token }),
    ...(tokenFile === undefined || tokenFile === "" ? {} : { tokenFile: resolvePath(baseDir, tokenFile) }),
    ...(clientCertificate === undefined ? {} : { clientCertificate }),
    ...(clientKey === undefined ? {} : { clientKey }),
    ...(username === undefined || username === "" ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(exec === undefined ? {} : { exec }),
    ...(authProvider === undefined ? {} : { authProvider }),
  };
}

/** A YAML parser (the `yaml` package's `parse`): throws on text that is not YAML. */
export type YamlParse = (text: string) => unknown;

/** Options for {@linkcode parseKubeconfig}. */
export interface ParseKubeconfigOptions {
  /** The file's folder, which relative paths are taken from. */
  readonly baseDir: string;
  /** Passed in so a controller in a pod (in-cluster config) never loads it (about 6 MiB). */
  readonly parseYaml: YamlParse;
}

/** Parses kubeconfig text; returns why it is unusable instead of throwing. */
export function parseKubeconfig(text: string, options: ParseKubeconfigOptions): Decoded<Kubeconfig> {
  const { baseDir, parseYaml } = options;
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { ok: false, reason: `kubeconfig is not valid YAML: ${message}` };
  }
  if (document === null || document === undefined) return { ok: false, reason: "kubeconfig is empty" };
  const root = asObject(document);
  if (root === undefined) return { ok: false, reason: "kubeconfig is not a YAML mapping" };
  try {
    const config = new Fields<ConfigWire>(root, "");
    const clusters = named(config.objects("clusters"), "clusters").map(({ name, entry }) =>
      parseCluster(name, entry.object("cluster"), baseDir)
    );
    const users = named(config.objects("users"), "users").map(({ name, entry }) =>
      parseUser(name, entry.object("user"), baseDir)
    );
    const contexts = named(config.objects("contexts"), "contexts").map(({ name, entry }) => {
      const context = entry.object("context");
      return {
        name,
        cluster: context.string("cluster"),
        user: context.optionalString("user") ?? "",
        namespace: context.optionalString("namespace") ?? "",
      };
    });
    return {
      ok: true,
      value: {
        currentContext: config.optionalString("current-context") ?? "",
        clusters: new Map(clusters.map((cluster) => [cluster.name, cluster])),
        users: new Map(users.map((user) => [user.name, user])),
        contexts: new Map(contexts.map((context) => [context.name, context])),
      },
    };
  } catch (error) {
    if (error instanceof FieldError) return { ok: false, reason: `kubeconfig: ${error.message}` };
    throw error;
  }
}
