/**
 * The annotation that makes a workload's DNS opt-in reversible: the template's DNS settings from
 * before, and the nameservers written (to tell our settings from someone else's).
 * - It sits on the Deployment's metadata, not the pod template: writing it must not roll pods.
 * - A restore names every `dnsConfig` field (`null` to delete): a merge patch merges objects, so
 *   naming only the original's fields would leave ours in place.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { PodDnsConfig, PodDnsOption, PodTemplateDns } from "../../resources/deployment.ts";
import { asObject, type JsonObject } from "../../resources/json.ts";
import { readAnnotationJson } from "./annotation_json.ts";

/** The Deployment annotation holding the pod template's DNS settings from before the opt-in. */
export const ORIGINAL_DNS_ANNOTATION = "ouroboros.dev/original-dns";

/** What {@linkcode ORIGINAL_DNS_ANNOTATION} holds. */
export interface OriginalDns {
  /** Absent fields were absent before the opt-in. */
  readonly original: { readonly dnsPolicy?: string; readonly dnsConfig?: PodDnsConfig };
  /** What the opt-in wrote. */
  readonly nameservers: readonly string[];
}

/** The annotation's text: stable JSON (fixed key order), so an unchanged value is not rewritten. */
export function encodeOriginalDns(value: OriginalDns): string {
  const { dnsPolicy, dnsConfig } = value.original;
  const config = dnsConfig === undefined ? undefined : {
    ...(dnsConfig.nameservers === undefined ? {} : { nameservers: dnsConfig.nameservers }),
    ...(dnsConfig.searches === undefined ? {} : { searches: dnsConfig.searches }),
    ...(dnsConfig.options === undefined ? {} : {
      options: dnsConfig.options.map((option) => ({
        ...(option.name === undefined ? {} : { name: option.name }),
        ...(option.value === undefined ? {} : { value: option.value }),
      })),
    }),
  };
  return JSON.stringify({
    original: {
      ...(dnsPolicy === undefined ? {} : { dnsPolicy }),
      ...(config === undefined ? {} : { dnsConfig: config }),
    },
    nameservers: value.nameservers,
  });
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
}

function decodeOption(value: unknown): PodDnsOption | undefined {
  const option = asObject(value);
  if (option === undefined) return undefined;
  const { name, value: optionValue } = option;
  if (name !== undefined && typeof name !== "string") return undefined;
  if (optionValue !== undefined && typeof optionValue !== "string") return undefined;
  return {
    ...(name === undefined ? {} : { name }),
    ...(optionValue === undefined ? {} : { value: optionValue }),
  };
}

function decodeConfig(value: unknown): PodDnsConfig | undefined {
  const config = asObject(value);
  if (config === undefined) return undefined;
  const out: { nameservers?: string[]; searches?: string[]; options?: PodDnsOption[] } = {};
  for (const field of ["nameservers", "searches"] as const) {
    if (config[field] === undefined) continue;
    const list = stringList(config[field]);
    if (list === undefined) return undefined;
    out[field] = list;
  }
  if (config.options !== undefined) {
    if (!Array.isArray(config.options)) return undefined;
    const options = config.options.map(decodeOption);
    if (options.some((option) => option === undefined)) return undefined;
    out.options = options.filter((option) => option !== undefined);
  }
  return out;
}

/** Reads the annotation's text, or says why it cannot be read (someone edited it by hand). */
export function decodeOriginalDns(text: string): OriginalDns | string {
  const object = readAnnotationJson(text);
  if (typeof object === "string") return object;
  const original = asObject(object.original);
  const nameservers = stringList(object.nameservers);
  if (original === undefined || nameservers === undefined) {
    return 'is not {"original": {…}, "nameservers": […]}';
  }
  const { dnsPolicy } = original;
  if (dnsPolicy !== undefined && typeof dnsPolicy !== "string") return "has a dnsPolicy that is not a string";
  const dnsConfig = original.dnsConfig === undefined ? undefined : decodeConfig(original.dnsConfig);
  if (original.dnsConfig !== undefined && dnsConfig === undefined) return "has a malformed dnsConfig";
  return {
    original: {
      ...(dnsPolicy === undefined ? {} : { dnsPolicy }),
      ...(dnsConfig === undefined ? {} : { dnsConfig }),
    },
    nameservers,
  };
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * Why the template is no longer this server's to manage (someone changed its `dnsPolicy` or
 * nameservers), or `undefined` while it is.
 */
export function changedByOthers(template: PodTemplateDns, stored: OriginalDns): string | undefined {
  if (template.dnsPolicy !== "None") {
    return `its pod template's dnsPolicy is ${template.dnsPolicy ?? "unset"} (this server wrote None)`;
  }
  if (!sameList(template.dnsConfig?.nameservers, stored.nameservers)) {
    return `its pod template's nameservers are ${JSON.stringify(template.dnsConfig?.nameservers ?? [])} ` +
      `(this server wrote ${JSON.stringify(stored.nameservers)})`;
  }
  return undefined;
}

/** The merge patch that removes {@linkcode ORIGINAL_DNS_ANNOTATION} only. */
export function releasePatch(): JsonObject {
  return { metadata: { annotations: { [ORIGINAL_DNS_ANNOTATION]: null } } };
}

/** The merge patch that puts the template's DNS settings back exactly and drops the annotation. */
export function restorePatch(stored: OriginalDns): JsonObject {
  const { dnsPolicy, dnsConfig } = stored.original;
  return {
    ...releasePatch(),
    spec: {
      template: {
        spec: {
          dnsPolicy: dnsPolicy ?? null,
          dnsConfig: dnsConfig === undefined ? null : {
            nameservers: dnsConfig.nameservers ?? null,
            searches: dnsConfig.searches ?? null,
            options: dnsConfig.options ?? null,
          },
        },
      },
    },
  };
}
