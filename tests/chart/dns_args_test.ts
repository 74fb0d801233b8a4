/**
 * Every argument the chart gives `ouroboros dns` (the server and the uninstall hook) is one the
 * binary accepts: the rendered args are parsed with DNS_OPTIONS and turned into settings with
 * dnsSettings, POD_NAMESPACE given as the downward API would, and the settings name the Services
 * the same render creates. The chart's defaults are the binary's, so an empty values file and an
 * unset flag mean the same.
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { ConfigError, parseOptions } from "../../lib/cli/options.ts";
import { DNS_OPTIONS } from "../../lib/dns/dns_options.ts";
import { type DnsSettings, dnsSettings } from "../../lib/dns/dns_settings.ts";
import {
  CHART_DIR,
  chartHelms,
  type Container,
  container,
  find,
  isHook,
  renderOk,
  type RenderOptions,
} from "./support.ts";
import { DNS_ALONE, DNS_EVERYTHING, dnsContainer } from "./dns_support.ts";

const { helms, test } = await chartHelms("chart dns argument check");

const RESOLV_CONF =
  "nameserver 10.96.0.10\nsearch ouroboros.svc.cluster.local svc.cluster.local cluster.local\n";

/** Parses a container's args as the binary would, in the pod's namespace. */
function settingsOf(c: Container, namespace: string, label: string): DnsSettings {
  const [command, ...argv] = c.args ?? [];
  assert.equal(command, "dns", label);
  const env = c.env ?? [];
  assert.deepEqual(
    env.map((variable) => variable.name),
    ["POD_NAMESPACE"],
    `${label}: POD_NAMESPACE, from the downward API, is the one variable`,
  );
  const outcome = parseOptions(DNS_OPTIONS, {
    argv,
    getEnv: (name) => (name === "POD_NAMESPACE" ? namespace : undefined),
  });
  assert.ok(outcome.kind === "ok", `${label}: ${JSON.stringify(outcome)}`);
  const settings = dnsSettings({ values: outcome.values, resolvConf: RESOLV_CONF, podNamespace: namespace });
  assert.ok(
    !(settings instanceof ConfigError),
    `${label}: ${settings instanceof ConfigError ? settings.message : ""}`,
  );
  return settings;
}

/** A value set, and the opt-ins it turns on (each must reach the binary, and only then). */
type Variant = RenderOptions & { what: string; workloads: boolean; proxyConfig: boolean };

const VARIANTS: Variant[] = [
  { what: "defaults", set: ["dns.enabled=true"], workloads: false, proxyConfig: false },
  { what: "every option", ...DNS_EVERYTHING, workloads: true, proxyConfig: true },
  { what: "alone, no hairpin", ...DNS_ALONE, workloads: false, proxyConfig: false },
  {
    what: "another release and namespace, log settings from the controller's",
    workloads: true,
    proxyConfig: false,
    release: "edge",
    namespace: "edge-system",
    set: ["dns.enabled=true", "dns.manageWorkloads=true", "controller.logLevel=debug", "dns.logFormat=text"],
    setString: ["dns.clientSelector=app=cert-manager"],
  },
];

test("every argument of the dns server and its hook parses with DNS_OPTIONS into settings the binary accepts", async () => {
  for (const helm of helms()) {
    for (const { what, workloads, proxyConfig, ...options } of VARIANTS) {
      const label = `${helm.label}, ${what}`;
      const namespace = options.namespace ?? "ouroboros";
      const objects = await renderOk(helm, options);
      const settings = settingsOf(dnsContainer(objects), namespace, label);
      // The Services it reads are the ones this render creates, in the release namespace.
      assert.ok(settings.dnsService !== undefined, label);
      assert.equal(settings.dnsService.namespace, namespace, label);
      find(objects, "Service", settings.dnsService.name);
      if (settings.values.hairpin) {
        assert.equal(settings.proxyService.namespace, namespace, label);
        find(objects, "Service", settings.proxyService.name);
      }
      // The opt-ins reach the binary exactly when the values ask for them.
      assert.equal(settings.values.manageWorkloads, workloads, label);
      assert.equal(settings.values.manageProxyConfig, proxyConfig, label);
      const hook = objects.find((o) =>
        isHook(o) && o.kind === "Job" && o.metadata.name.endsWith("-dns-restore")
      );
      assert.equal(hook !== undefined, workloads, `${label}: the hook exists with manageWorkloads`);
      if (hook !== undefined) {
        const restore = settingsOf(container(hook, "restore"), namespace, `${label}, hook`);
        assert.equal(restore.values.restoreWorkloads, true, label);
        assert.equal(restore.values.manageWorkloads, false, `${label}: the hook only restores`);
      }
    }
  }
});

Deno.test("the dns values' defaults are the binary's defaults", async () => {
  const values = parse(await Deno.readTextFile(`${CHART_DIR}/values.yaml`)) as {
    dns: Record<string, unknown>;
  };
  const option = DNS_OPTIONS.options;
  const pairs: [string, unknown, string][] = [
    ["upstream", values.dns.upstream, option.upstream.default],
    ["ttl", values.dns.ttl, option.ttl.default],
    ["maxUdpSize", String(values.dns.maxUdpSize), option.maxUdpSize.default],
    ["upstreamTimeout", values.dns.upstreamTimeout, option.upstreamTimeout.default],
    ["cacheSize", String(values.dns.cacheSize), option.cacheSize.default],
    ["tcpIdleTimeout", values.dns.tcpIdleTimeout, option.tcpIdleTimeout.default],
    ["clientSelector", values.dns.clientSelector, option.clientSelector.default],
    ["hairpin", String(values.dns.hairpin), option.hairpin.default],
    ["manageWorkloads", String(values.dns.manageWorkloads), option.manageWorkloads.default],
    ["manageProxyConfig", String(values.dns.manageProxyConfig), option.manageProxyConfig.default],
  ];
  for (const [key, chart, binary] of pairs) assert.equal(chart, binary, `dns.${key}`);
  // The listeners the chart's ports and Service assume.
  assert.equal(option.listenDns.default, ":5353");
  assert.equal(option.listenHealth.default, ":8084");
});
