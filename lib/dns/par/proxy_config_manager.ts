/**
 * Keeps par's proxy pointed at this server: renders every proxy ConfigMap, then rolls the proxy.
 * No roll while a ConfigMap write failed or is not yet cached: the proxy would restart with the
 * old text under the new hash.
 *
 * Effects: writes ConfigMaps and Deployments through the API client.
 *
 * @module
 */

import { CONFIG_MAP, type ConfigMap } from "../../resources/config_map.ts";
import { DEPLOYMENT, type Deployment } from "../../resources/deployment.ts";
import { type ParOutcome, type ParWriteApi, patchObject, PendingWrites, targetName } from "./par_outcome.ts";
import { planProxyRestarts, proxyConfigHash } from "./plan_proxy_restarts.ts";
import { PAR_PROXY_CONFIG_LABEL, renderProxyConfig } from "./render_proxy_config.ts";

/** What one pass works from. */
export interface ProxyConfigState {
  /** Those outside the par namespace or without the label are ignored. */
  readonly configMaps: readonly ConfigMap[];
  readonly deployments: readonly Deployment[];
  /** This server's Service address; `""` while unknown (nothing is written). */
  readonly resolver: string;
}

/** The hint for a labelled ConfigMap with nothing to render. */
const NO_TAG = "has the label par.dev/proxy-config but no {{ .dnsResolver }} tag and no kept template " +
  "(par replaced the tag for good when it rendered): put the tag back where the resolver's address goes";

/** Renders the proxy configuration and rolls the proxy when it changes. */
export class ProxyConfigManager {
  readonly #api: ParWriteApi;
  readonly #parNamespace: string;
  readonly #pending = new PendingWrites();

  /** `parNamespace` is where par's proxy runs. */
  constructor(api: ParWriteApi, options: { readonly parNamespace: string }) {
    this.#api = api;
    this.#parNamespace = options.parNamespace;
  }

  /** One pass; an abort stops it and is rethrown. */
  async sync(state: ProxyConfigState, signal: AbortSignal): Promise<readonly ParOutcome[]> {
    if (state.resolver === "") return [];
    const outcomes: ParOutcome[] = [];
    const rendered = new Map<string, Readonly<Record<string, string>>>();
    const seen = new Set<string>();
    let settled = true;
    const proxyConfigs = state.configMaps.filter((configMap) =>
      configMap.metadata.namespace === this.#parNamespace &&
      configMap.metadata.labels[PAR_PROXY_CONFIG_LABEL] === "true"
    );
    for (const configMap of proxyConfigs) {
      signal.throwIfAborted();
      const target = targetName("ConfigMap", configMap);
      seen.add(target);
      const result = renderProxyConfig(configMap, state.resolver);
      const notice = result.notice === undefined ? {} : { notice: result.notice };
      if (result.kind === "not-templated") {
        outcomes.push({
          kind: "skipped",
          target,
          reason: result.notice === undefined ? NO_TAG : result.notice,
        });
        continue;
      }
      if (Object.keys(result.rendered).length > 0) rendered.set(target, result.rendered);
      if (result.kind === "unchanged") outcomes.push({ kind: "unchanged", target, ...notice });
      else if (this.#pending.waiting(target, configMap)) {
        settled = false;
        outcomes.push({ kind: "unchanged", target });
      } else if (configMap.immutable) {
        settled = false;
        outcomes.push({ kind: "skipped", target, reason: "is immutable, so its tag cannot be rendered" });
      } else {
        const outcome = await patchObject(this.#api, {
          type: CONFIG_MAP,
          object: configMap,
          patch: result.patch,
          action: "render",
          detail: result.changedKeys.length === 0
            ? "its kept template updated"
            : `rendered ${result.changedKeys.join(", ")} with resolver ${state.resolver}`,
          signal,
          ...notice,
        });
        this.#pending.record(outcome, configMap);
        if (outcome.kind !== "written") settled = false;
        outcomes.push(outcome);
      }
    }
    if (settled && rendered.size > 0) {
      outcomes.push(...await this.#restart(state.deployments, proxyConfigHash(rendered), { seen, signal }));
    }
    this.#pending.retain(seen);
    return outcomes;
  }

  async #restart(
    deployments: readonly Deployment[],
    hash: string,
    options: { readonly seen: Set<string>; readonly signal: AbortSignal },
  ): Promise<ParOutcome[]> {
    const outcomes: ParOutcome[] = [];
    for (const restart of planProxyRestarts(deployments, { parNamespace: this.#parNamespace, hash })) {
      options.signal.throwIfAborted();
      const target = targetName("Deployment", restart.deployment);
      options.seen.add(target);
      if (this.#pending.waiting(target, restart.deployment)) continue;
      const outcome = await patchObject(this.#api, {
        type: DEPLOYMENT,
        object: restart.deployment,
        patch: restart.patch,
        action: "restart",
        detail: `its configuration changed (hash ${hash})`,
        signal: options.signal,
      });
      this.#pending.record(outcome, restart.deployment);
      outcomes.push(outcome);
    }
    return outcomes;
  }
}
