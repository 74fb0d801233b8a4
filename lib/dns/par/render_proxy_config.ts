/**
 * Renders par's proxy ConfigMaps: `{{ .dnsResolver }}` becomes this server's Service address. The
 * templates are kept in an annotation, so an address change renders again (par lost the tag).
 * - Only that tag is replaced, never evaluated as a template: other braces stay as written.
 * - A value holding the tag is the template; a rendered value someone edited is theirs.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { ConfigMap } from "../../resources/config_map.ts";
import { asObject, type JsonObject } from "../../resources/json.ts";
import { readAnnotationJson } from "./annotation_json.ts";

/** The label par's proxy ConfigMaps carry (`"true"`). */
export const PAR_PROXY_CONFIG_LABEL = "par.dev/proxy-config";

/** The ConfigMap annotation that keeps the values with the tag, so they can be rendered again. */
export const PAR_TEMPLATE_ANNOTATION = "ouroboros.dev/par-template";

/** The one tag replaced; `{{.dnsResolver}}` and `{{  .dnsResolver  }}` count too. */
const TAG = /\{\{[ \t]*\.dnsResolver[ \t]*\}\}/;
const TAG_ALL = new RegExp(TAG.source, "g");

/** What {@linkcode PAR_TEMPLATE_ANNOTATION} holds. */
interface StoredTemplate {
  readonly resolver: string;
  readonly data: Readonly<Record<string, string>>;
}

/**
 * The outcome for one ConfigMap. `rendered` holds every templated key, written or not (what the
 * proxy runs with, for the restart hash); `notice` is worth logging (an unreadable annotation).
 */
export type ProxyConfigRender =
  | { readonly kind: "not-templated"; readonly notice?: string }
  | {
    readonly kind: "unchanged";
    readonly rendered: Readonly<Record<string, string>>;
    readonly notice?: string;
  }
  | {
    readonly kind: "write";
    readonly rendered: Readonly<Record<string, string>>;
    readonly patch: JsonObject;
    /** The keys whose text changes, sorted (`[]` when only the annotation does). */
    readonly changedKeys: readonly string[];
    readonly notice?: string;
  };

/** `template` with every tag replaced by `resolver`. */
export function renderTemplate(template: string, resolver: string): string {
  return template.replace(TAG_ALL, () => resolver);
}

function readStored(text: string | undefined): StoredTemplate | string | undefined {
  if (text === undefined) return undefined;
  const object = readAnnotationJson(text);
  if (typeof object === "string") return object;
  const data = asObject(object.data);
  if (typeof object.resolver !== "string" || data === undefined) {
    return 'is not {"resolver": "…", "data": {…}}';
  }
  if (!Object.values(data).every((value) => typeof value === "string")) return "has a value that is not text";
  return { resolver: object.resolver, data: data as Readonly<Record<string, string>> };
}

function sortedRecord(entries: Iterable<[string, string]>): Record<string, string> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Renders one proxy ConfigMap with `resolver`: what to write, or that nothing needs to be.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeConfigMap } from "../../resources/config_map.ts";
 * import { renderProxyConfig } from "./render_proxy_config.ts";
 *
 * const configMap = decodeConfigMap({
 *   metadata: { name: "nginx", namespace: "ingress", resourceVersion: "1" },
 *   data: { "nginx.conf": "resolver {{ .dnsResolver }};" },
 * });
 * assert.ok(configMap.ok);
 * const result = renderProxyConfig(configMap.value, "10.96.0.53");
 * assert.ok(result.kind === "write");
 * assert.deepEqual(result.rendered, { "nginx.conf": "resolver 10.96.0.53;" });
 * ```
 */
export function renderProxyConfig(configMap: ConfigMap, resolver: string): ProxyConfigRender {
  const current = configMap.metadata.annotations[PAR_TEMPLATE_ANNOTATION];
  const read = readStored(current);
  const stored = typeof read === "object" ? read : undefined;
  const notice = typeof read === "string"
    ? `its annotation ${PAR_TEMPLATE_ANNOTATION} ${read}; it is replaced from the data's tags`
    : undefined;
  const templates = new Map<string, string>();
  for (const [key, value] of Object.entries(configMap.data)) {
    if (TAG.test(value)) templates.set(key, value);
    else {
      const template = stored?.data[key];
      if (template !== undefined && value === renderTemplate(template, stored?.resolver ?? "")) {
        templates.set(key, template);
      }
    }
  }
  const extra = notice === undefined ? {} : { notice };
  if (templates.size === 0) {
    if (current === undefined) return { kind: "not-templated", ...extra };
    return {
      kind: "write",
      rendered: {},
      patch: { metadata: { annotations: { [PAR_TEMPLATE_ANNOTATION]: null } } },
      changedKeys: [],
      ...extra,
    };
  }
  const rendered = sortedRecord(
    [...templates].map(([key, template]) => [key, renderTemplate(template, resolver)]),
  );
  const annotation = JSON.stringify({ resolver, data: sortedRecord(templates) });
  const changedKeys = Object.keys(rendered).filter((key) => configMap.data[key] !== rendered[key]);
  if (changedKeys.length === 0 && annotation === current) return { kind: "unchanged", rendered, ...extra };
  const data = Object.fromEntries(changedKeys.map((key) => [key, rendered[key]]));
  return {
    kind: "write",
    rendered,
    patch: {
      metadata: { annotations: { [PAR_TEMPLATE_ANNOTATION]: annotation } },
      ...(changedKeys.length === 0 ? {} : { data }),
    },
    changedKeys,
    ...extra,
  };
}
