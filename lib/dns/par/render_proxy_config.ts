/**
 * par's forward-proxy configuration, rendered: a ConfigMap labelled `par.dev/proxy-config: "true"`
 * in the par namespace holds `{{ .dnsResolver }}` (spaces inside the braces optional) where the
 * proxy must name its DNS resolver (nginx's `resolver {{ .dnsResolver }};`). The tag is replaced
 * with this server's Service address, so the proxy's own lookups come here.
 *
 * The values that held the tag are kept, as written, in the annotation
 * `ouroboros.dev/par-template` (JSON: `{"resolver": <address rendered>, "data": {<key>: <template>}}`)
 * so that a later address change renders them again; par replaced the tag once and lost it.
 *
 * Decided:
 * - Only that tag is replaced. par ran the whole value through Go's `text/template`; here any
 *   other `{{ … }}` is left as it is, so a proxy configuration that uses braces of its own is not
 *   mangled, and nothing a ConfigMap says can make this server evaluate anything.
 * - A value that holds the tag is the template, always: a user's edit that brings the tag back
 *   is the new template. A rendered value that someone edited (it is no longer the template
 *   rendered with the address recorded) is theirs: it is no longer rendered or kept as a
 *   template. A key that is gone is dropped from the template.
 * - The result carries the rendered text of every templated key, written or not, so that the
 *   proxy restart (`plan_proxy_restarts.ts`) hashes what the proxy runs with.
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

/** The outcome for one ConfigMap. `notice`: something worth saying besides (an unreadable annotation). */
export type ProxyConfigRender =
  /** No tag and no template: not this server's business. */
  | { readonly kind: "not-templated"; readonly notice?: string }
  | {
    readonly kind: "unchanged";
    /** The rendered text of every templated key: what the proxy runs with. */
    readonly rendered: Readonly<Record<string, string>>;
    readonly notice?: string;
  }
  | {
    readonly kind: "write";
    /** The rendered text of every templated key, once `patch` is written. */
    readonly rendered: Readonly<Record<string, string>>;
    /** The JSON merge patch to send. */
    readonly patch: JsonObject;
    /** The keys whose text changes, sorted (`[]` when only the annotation does). */
    readonly changedKeys: readonly string[];
    readonly notice?: string;
  };

/** `template` with every tag replaced by `resolver`; other text, braces included, untouched. */
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
 * Renders one proxy ConfigMap with `resolver` (this server's Service address): what to write,
 * or that nothing needs to be.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from "../../resources/config_map.ts";
 * import { renderProxyConfig } from "./render_proxy_config.ts";
 *
 * declare const configMap: ConfigMap; // data: { "nginx.conf": "resolver {{ .dnsResolver }};" }
 * const result = renderProxyConfig(configMap, "10.96.0.53");
 * // { kind: "write", rendered: { "nginx.conf": "resolver 10.96.0.53;" }, patch: { data: …, metadata: … }, … }
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
