/**
 * kuberture's YAML config file, with kuberture's keys, defaults and rules, so `ouroboros kuberture`
 * reads the ConfigMap kuberture used; every problem is reported at once. docs/differences.md (From
 * kuberture) lists where we differ on purpose (unknown keys, explicit empty values and `recordTTL: 0`
 * refused; `addressType: Both` for both families; `output: crd`).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { namespaceName, serviceName } from "../../cli/kinds.ts";
import type { LogLevelName } from "../../util/log_format.ts";
import { parseListenAddress } from "../../util/listen_address.ts";
import type { Node } from "yaml";
import { ConfigDocument, type ConfigEntry, type ConfigListItem, isLeftOut } from "./config_document.ts";
import {
  ADDRESS_FAMILIES,
  ADDRESS_SOURCES,
  CONFIG_LOG_LEVELS,
  configKeyDoc,
  DEFAULT_ANNOTATION_PREFIX,
  DEFAULT_RECORD_TTL,
  OUTPUT_KINDS,
  RECORD_TTL_RANGE,
} from "./kuberture_config_keys.ts";
import { annotationPrefixProblem, hostnameProblem } from "./name_problems.ts";
import { checkOutputsUnique, type OutputPlaces } from "./check_outputs_unique.ts";

/** Where an output takes its addresses from. */
export type AddressSource = (typeof ADDRESS_SOURCES)[number];
/** An address family an output may be limited to. */
export type AddressFamily = (typeof ADDRESS_FAMILIES)[number];
/** What an output writes: an annotated headless Service, or a DNSEndpoint. */
export type OutputKind = (typeof OUTPUT_KINDS)[number];

/** One output: a set of hostnames published with one source's addresses through one object. */
export interface KubertureOutput {
  readonly name: string;
  /** The names to publish, as written (the YAML key is `hostname`). */
  readonly hostnames: readonly string[];
  /** Ends with `/`; `external-dns.alpha.kubernetes.io/` when left out. */
  readonly annotationPrefix: string;
  /** The Service (or DNSEndpoint) written in the controller's namespace. */
  readonly serviceName: string;
  /** Seconds, 1–86400; 60 when left out. */
  readonly recordTTL: number;
  readonly addressSource: AddressSource;
  /** The family published: `IPv4` (kuberture's default), `IPv6`, or `Both` (not in kuberture). */
  readonly addressType: AddressFamily;
  /** The YAML key `output`; `service` when left out. */
  readonly kind: OutputKind;
}

/** The whole file with every default filled in. */
export interface KubertureConfig {
  readonly source: { readonly namespace: string; readonly serviceName: string };
  readonly outputs: readonly KubertureOutput[];
  /** A listen address such as `:8080`, or `0` for no metrics listener. */
  readonly metricsBindAddress: string;
  /** A listen address such as `:8081`, or `0` for no health listener. */
  readonly healthProbeBindAddress: string;
  /** `undefined` when left out: the `--log-level` flag decides. */
  readonly logLevel: LogLevelName | undefined;
}

/** The outcome of {@linkcode parseKubertureConfig}. */
export type KubertureConfigResult =
  | { readonly ok: true; readonly config: KubertureConfig }
  | { readonly ok: false; readonly problems: readonly string[] };

const TOP_KEYS = ["source", "outputs", "metricsBindAddress", "healthProbeBindAddress", "logLevel"];
const SOURCE_KEYS = ["namespace", "serviceName"];
const OUTPUT_KEYS = [
  "name",
  "hostname",
  "annotationPrefix",
  "serviceName",
  "recordTTL",
  "addressSource",
  "addressType",
  "output",
];
const TOP_HINTS = {
  config: "this looks like Helm values: the file holds what is under config:",
  kuberture: "this looks like Helm values: the file holds what is under kuberture.config:",
};
const OUTPUT_HINTS = {
  serviceNamespace: "kuberture's README shows it, but kuberture writes every output's Service in its own " +
    "namespace, and so does ouroboros; remove it",
  hostnames: "did you mean hostname? The key is singular and takes a list",
};

/**
 * Parses and checks the file; each problem reads `<path>:<line>:<col>: <key path>: <what is wrong>;
 * <what is accepted>`, in file order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseKubertureConfig } from "./kuberture_config.ts";
 *
 * const text = "outputs:\n  - name: api\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-api\n";
 * const parsed = parseKubertureConfig(text, { path: "/etc/kuberture/config.yaml" });
 * assert.ok(parsed.ok);
 * assert.equal(parsed.config.outputs[0]?.recordTTL, 60);
 * ```
 */
export function parseKubertureConfig(
  text: string,
  options: { readonly path: string },
): KubertureConfigResult {
  const doc = new ConfigDocument(text, options);
  if (doc.problems.length > 0) return { ok: false, problems: doc.problems };
  const top = doc.mapping(doc.root, "", { keys: TOP_KEYS, what: "the config file", hints: TOP_HINTS });
  if (top === undefined) return { ok: false, problems: doc.problems };

  const sourceEntries = doc.mapping(top.get("source")?.value, "source", {
    keys: SOURCE_KEYS,
    what: "source",
  });
  const namespace = readName(doc, sourceEntries?.get("namespace"), "source.namespace", namespaceName().parse);
  const sourceService = readName(
    doc,
    sourceEntries?.get("serviceName"),
    "source.serviceName",
    serviceName().parse,
  );
  const outputs = readOutputs(doc, top.get("outputs"));
  checkOutputsUnique(doc, outputs);
  const metricsBindAddress = readListen(doc, top.get("metricsBindAddress"), "metricsBindAddress") ?? ":8080";
  const healthProbeBindAddress =
    readListen(doc, top.get("healthProbeBindAddress"), "healthProbeBindAddress") ??
      ":8081";
  const logLevel = readChoice(doc, top.get("logLevel"), CONFIG_LOG_LEVELS, "logLevel");

  if (doc.problems.length > 0) return { ok: false, problems: doc.problems };
  return {
    ok: true,
    config: {
      source: { namespace: namespace ?? "default", serviceName: sourceService ?? "kubernetes" },
      outputs: outputs.map((output) => output.value).filter((value) => value !== undefined),
      metricsBindAddress,
      healthProbeBindAddress,
      logLevel,
    },
  };
}

/** One output as read: its value when complete, and where its names are for the uniqueness checks. */
interface ReadOutput extends OutputPlaces {
  readonly value: KubertureOutput | undefined;
}

function readOutputs(doc: ConfigDocument, entry: ConfigEntry | undefined): ReadOutput[] {
  const accepts = configKeyDoc("outputs").accepts;
  if (isLeftOut(entry)) {
    doc.problem(
      entry?.keyNode,
      "outputs",
      `missing; give ${accepts}: kuberture has nothing to publish without one`,
    );
    return [];
  }
  const nodes = doc.list(entry, accepts);
  if (nodes === undefined) return [];
  if (nodes.length === 0) doc.problem(entry!.value, "outputs", `the list is empty; give ${accepts}`);
  const read: ReadOutput[] = [];
  nodes.forEach((node, index) => {
    const keyPath = `outputs[${index}]`;
    const spec = { keys: OUTPUT_KEYS, what: "an output", hints: OUTPUT_HINTS, required: true };
    const entries = doc.mapping(node, keyPath, spec);
    if (entries !== undefined && node !== undefined) {
      read.push(readOutput(doc, { node, keyPath, index, entries }));
    }
  });
  return read;
}

interface OutputInput {
  readonly node: Node;
  readonly keyPath: string;
  readonly index: number;
  readonly entries: Map<string, ConfigEntry>;
}

function readOutput(doc: ConfigDocument, input: OutputInput): ReadOutput {
  const { node, keyPath, index, entries } = input;
  const required = (key: string): ConfigEntry | undefined => {
    const entry = entries.get(key);
    if (!isLeftOut(entry)) return entry;
    const accepts = configKeyDoc(`outputs[].${key}`).accepts;
    doc.problem(entry?.keyNode ?? node, `${keyPath}.${key}`, `missing; give ${accepts}`);
    return undefined;
  };
  const nameEntry = required("name");
  const name = nonEmpty(doc, nameEntry, "outputs[].name");
  const hostnames = readHostnames(doc, required("hostname"));
  const serviceNameEntry = required("serviceName");
  const service = readName(doc, serviceNameEntry, "outputs[].serviceName", serviceName().parse);
  const kind = readChoice(doc, entries.get("output"), OUTPUT_KINDS, "outputs[].output") ?? "service";
  const prefixEntry = entries.get("annotationPrefix");
  const prefix = nonEmpty(doc, prefixEntry, "outputs[].annotationPrefix");
  if (prefix !== undefined) {
    const problem = kind === "crd"
      ? "applies to output: service only; a DNSEndpoint (output: crd) carries its records in spec.endpoints, " +
        "so remove the key"
      : annotationPrefixProblem(prefix);
    if (problem !== undefined) doc.problem(prefixEntry!.value, prefixEntry!.keyPath, problem);
  }
  const recordTTL = readTtl(doc, entries.get("recordTTL"));
  const addressSource = readChoice(
    doc,
    entries.get("addressSource"),
    ADDRESS_SOURCES,
    "outputs[].addressSource",
  );
  const addressType = readChoice(doc, entries.get("addressType"), ADDRESS_FAMILIES, "outputs[].addressType");
  const complete = name !== undefined && service !== undefined && hostnames.length > 0;
  return {
    index,
    name,
    nameEntry,
    serviceName: service,
    serviceNameEntry,
    hostnames,
    value: complete
      ? {
        name,
        hostnames: hostnames.map((item) => item.text),
        annotationPrefix: prefix ?? DEFAULT_ANNOTATION_PREFIX,
        serviceName: service,
        recordTTL: recordTTL ?? DEFAULT_RECORD_TTL,
        addressSource: addressSource ?? "endpointslice",
        addressType: addressType ?? "IPv4",
        kind,
      }
      : undefined,
  };
}

/** The valid hostnames of an output; each invalid one is a problem, as is an empty list. */
function readHostnames(doc: ConfigDocument, entry: ConfigEntry | undefined): ConfigListItem[] {
  const accepts = configKeyDoc("outputs[].hostname").accepts;
  const nodes = doc.list(entry, "a list of hostnames");
  if (nodes === undefined) return [];
  if (nodes.length === 0) doc.problem(entry!.value, entry!.keyPath, `the list is empty; give ${accepts}`);
  return doc.textItems(nodes, entry!.keyPath).filter((item) => {
    const problem = hostnameProblem(item.text);
    if (problem !== undefined) doc.problem(item.node, item.keyPath, problem);
    return problem === undefined;
  });
}

/** Text that may not be explicitly empty; `undefined` when left out or wrong. */
function nonEmpty(doc: ConfigDocument, entry: ConfigEntry | undefined, key: string): string | undefined {
  const text = doc.text(entry);
  if (text !== "") return text;
  const reference = configKeyDoc(key);
  const fallback = reference.default.startsWith("(required)")
    ? ""
    : `, or leave the key out for ${plain(reference.default)}`;
  doc.problem(entry!.value, entry!.keyPath, `empty; give ${reference.accepts}${fallback}`);
  return undefined;
}

/** A Kubernetes name checked with one of the option kinds' parsers. */
function readName(
  doc: ConfigDocument,
  entry: ConfigEntry | undefined,
  key: string,
  parse: (raw: string) => { readonly ok: boolean },
): string | undefined {
  const text = nonEmpty(doc, entry, key);
  if (text === undefined) return undefined;
  if (parse(text).ok) return text;
  doc.problem(
    entry!.value,
    entry!.keyPath,
    `${JSON.stringify(text)} is not accepted; give ${configKeyDoc(key).accepts}`,
  );
  return undefined;
}

/** One of `choices`, exactly; a value that differs only in case gets a "did you mean". */
function readChoice<T extends string>(
  doc: ConfigDocument,
  entry: ConfigEntry | undefined,
  choices: readonly T[],
  key: string,
): T | undefined {
  const text = nonEmpty(doc, entry, key);
  if (text === undefined) return undefined;
  const exact = choices.find((choice) => choice === text);
  if (exact !== undefined) return exact;
  const near = choices.find((choice) => choice.toLowerCase() === text.toLowerCase());
  const hint = near === undefined ? "" : ` (did you mean ${near}?)`;
  doc.problem(
    entry!.value,
    entry!.keyPath,
    `${JSON.stringify(text)} is not accepted${hint}; give ${configKeyDoc(key).accepts}`,
  );
  return undefined;
}

function readTtl(doc: ConfigDocument, entry: ConfigEntry | undefined): number | undefined {
  const accepts = configKeyDoc("outputs[].recordTTL").accepts;
  const ttl = doc.integer(entry, accepts);
  if (ttl === undefined || (ttl >= RECORD_TTL_RANGE.min && ttl <= RECORD_TTL_RANGE.max)) return ttl;
  const why = ttl === 0
    ? "0 is not accepted (kuberture's chart schema refuses it too; its code read 0 as 60)"
    : `${ttl} is out of range`;
  doc.problem(
    entry!.value,
    entry!.keyPath,
    `${why}; give ${accepts}, or leave the key out for ${DEFAULT_RECORD_TTL}`,
  );
  return undefined;
}

function readListen(doc: ConfigDocument, entry: ConfigEntry | undefined, key: string): string | undefined {
  const text = nonEmpty(doc, entry, key);
  if (text === undefined || text === "0") return text;
  const parsed = parseListenAddress(text);
  if (typeof parsed !== "string") return text;
  doc.problem(
    entry!.value,
    entry!.keyPath,
    `${JSON.stringify(text)} is not accepted (${parsed}); give ${configKeyDoc(key).accepts}`,
  );
  return undefined;
}

/** A reference default as plain words: "`60`" → "60", "(none)" → "none". */
function plain(markdown: string): string {
  return markdown.replaceAll("`", "").replace(/^\((.*)\)$/, "$1");
}
