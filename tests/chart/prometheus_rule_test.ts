/**
 * The chart's optional PrometheusRule: off by default; when on, `promtool check rules` accepts its
 * groups, and `promtool test rules` proves each alert fires on the series that mean trouble and
 * stays quiet on a healthy release (series from another namespace never count).
 */

import assert from "node:assert/strict";
import { stringify } from "yaml";
import { requireTool } from "../support/tools.ts";
import { tempDir } from "../support/temp_dir.ts";
import { anchorsOf } from "../support/markdown_links.ts";
import {
  chartHelms,
  type K8sObject,
  namesKey,
  ofKind,
  renderFails,
  renderOk,
  validateObject,
} from "./support.ts";

const { helm4, test } = await chartHelms("chart PrometheusRule", { helm3: false, tools: ["promtool"] });

async function promtool(args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  const run = await new Deno.Command(requireTool("promtool"), {
    args: [...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decoder = new TextDecoder();
  return { code: run.code, output: decoder.decode(run.stdout) + decoder.decode(run.stderr) };
}

/** The PrometheusRule's groups as a rules file. */
function rulesFile(rule: K8sObject): string {
  return stringify({ groups: (rule.spec as { groups: unknown[] }).groups });
}

const NS = 'namespace="ouroboros"';
const OTHER = 'namespace="elsewhere"';

/** One alert's test case: input series, the time to evaluate, the alerts expected then. */
interface Case {
  readonly name: string;
  readonly series: readonly { series: string; values: string }[];
  readonly at: string;
  readonly alerts: readonly string[];
}

/** Every alert once firing, and a healthy release (and another namespace's trouble) firing nothing. */
const CASES: readonly Case[] = [
  {
    name: "healthy",
    series: [
      { series: `ouroboros_controller_cache_synced{${NS},pod="c",kind="Ingress"}`, values: "1x40" },
      // The last success keeps up with the clock (a reconcile every 30 s).
      {
        series: `ouroboros_controller_last_successful_reconcile_timestamp_seconds{${NS},pod="c"}`,
        values: "0+60x40",
      },
      { series: `ouroboros_controller_reconciles_total{${NS},pod="c",result="error"}`, values: "0x40" },
      { series: `ouroboros_controller_refusals_total{${NS},pod="c",problem="markers"}`, values: "0x40" },
      { series: `ouroboros_proxy_backend_ready{${NS},pod="p"}`, values: "1x40" },
      { series: `ouroboros_proxy_accept_errors_total{${NS},pod="p",listener="http"}`, values: "0x40" },
      // Trouble in another namespace is another release's.
      { series: `ouroboros_proxy_backend_ready{${OTHER},pod="x"}`, values: "0x40" },
    ],
    at: "30m",
    alerts: [],
  },
  { name: "absent", series: [], at: "15m", alerts: ["OuroborosControllerAbsent"] },
  {
    name: "not synced",
    series: [{ series: `ouroboros_controller_cache_synced{${NS},pod="c",kind="Ingress"}`, values: "0x40" }],
    at: "15m",
    alerts: ["OuroborosControllerNotSynced"],
  },
  {
    name: "stale",
    series: [
      { series: `ouroboros_controller_cache_synced{${NS},pod="c",kind="Ingress"}`, values: "1x40" },
      {
        series: `ouroboros_controller_last_successful_reconcile_timestamp_seconds{${NS},pod="c"}`,
        values: "60x40",
      },
    ],
    at: "20m",
    alerts: ["OuroborosReconcileStale"],
  },
  {
    name: "errors",
    series: [
      { series: `ouroboros_controller_cache_synced{${NS},pod="c",kind="Ingress"}`, values: "1x60" },
      {
        series: `ouroboros_controller_last_successful_reconcile_timestamp_seconds{${NS},pod="c"}`,
        values: "0+60x60",
      },
      { series: `ouroboros_controller_reconciles_total{${NS},pod="c",result="error"}`, values: "0+1x60" },
    ],
    at: "40m",
    alerts: ["OuroborosReconcileErrors"],
  },
  {
    name: "refusals",
    series: [
      { series: `ouroboros_controller_cache_synced{${NS},pod="c",kind="Ingress"}`, values: "1x40" },
      {
        series: `ouroboros_controller_last_successful_reconcile_timestamp_seconds{${NS},pod="c"}`,
        values: "0+60x40",
      },
      {
        series: `ouroboros_controller_refusals_total{${NS},pod="c",problem="markers"}`,
        values: "0 0 1 1 1 1 1",
      },
    ],
    at: "4m",
    alerts: ["OuroborosRefusals"],
  },
  {
    name: "backend",
    series: [
      { series: `ouroboros_controller_cache_synced{${NS},pod="c",kind="Ingress"}`, values: "1x40" },
      {
        series: `ouroboros_controller_last_successful_reconcile_timestamp_seconds{${NS},pod="c"}`,
        values: "0+60x40",
      },
      { series: `ouroboros_proxy_backend_ready{${NS},pod="p"}`, values: "0x40" },
    ],
    at: "10m",
    alerts: ["OuroborosProxyBackendUnreachable"],
  },
  {
    name: "emfile",
    series: [
      { series: `ouroboros_controller_cache_synced{${NS},pod="c",kind="Ingress"}`, values: "1x40" },
      {
        series: `ouroboros_controller_last_successful_reconcile_timestamp_seconds{${NS},pod="c"}`,
        values: "0+60x40",
      },
      { series: `ouroboros_proxy_accept_errors_total{${NS},pod="p",listener="http"}`, values: "0+5x40" },
    ],
    at: "15m",
    alerts: ["OuroborosProxyAcceptErrors"],
  },
];

const ALERTS = [
  "OuroborosControllerAbsent",
  "OuroborosControllerNotSynced",
  "OuroborosReconcileStale",
  "OuroborosReconcileErrors",
  "OuroborosRefusals",
  "OuroborosProxyBackendUnreachable",
  "OuroborosProxyAcceptErrors",
];

interface RuleAlert {
  readonly alert: string;
  readonly annotations: Record<string, string>;
}

/** A promtool unit-test file: per case, every alert checked (expected firing or expected quiet). */
function testFile(cases: readonly Case[], rules: readonly RuleAlert[]): string {
  return stringify({
    rule_files: ["rules.yaml"],
    evaluation_interval: "1m",
    tests: cases.map((entry) => ({
      interval: "1m",
      input_series: entry.series,
      alert_rule_test: rules.map(({ alert, annotations }) => {
        const labels = expectedLabels(alert);
        return {
          eval_time: entry.at,
          alertname: alert,
          exp_alerts: entry.alerts.includes(alert)
            ? [{
              exp_labels: labels,
              // The annotations' templates filled in with the alert's labels.
              exp_annotations: Object.fromEntries(
                Object.entries(annotations).map((
                  [key, text],
                ) => [
                  key,
                  text.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, name: string) => labels[name] ?? ""),
                ]),
              ),
            }]
            : [],
        };
      }),
    })),
  });
}

/** The labels a firing alert carries: its severity, and what its `by` clause or series keeps. */
function expectedLabels(alertname: string): Record<string, string> {
  const severity = ["OuroborosRefusals", "OuroborosProxyBackendUnreachable"].includes(alertname)
    ? "critical"
    : "warning";
  switch (alertname) {
    case "OuroborosControllerAbsent":
      return { severity, namespace: "ouroboros" };
    case "OuroborosControllerNotSynced":
    case "OuroborosProxyAcceptErrors":
      return { severity, pod: alertname === "OuroborosControllerNotSynced" ? "c" : "p" };
    case "OuroborosRefusals":
      return { severity, problem: "markers" };
    case "OuroborosProxyBackendUnreachable":
      return { severity, namespace: "ouroboros", pod: "p" };
    default:
      return { severity };
  }
}

test("PrometheusRule: off by default; promtool checks the rules and every alert fires when, and only when, it should", async () => {
  const helm = helm4();
  assert.deepEqual(ofKind(await renderOk(helm, {}), "PrometheusRule"), []);
  const objects = await renderOk(helm, {
    set: ["metrics.prometheusRule.enabled=true", "metrics.prometheusRule.labels.release=kube-prometheus"],
  });
  const [rule] = ofKind(objects, "PrometheusRule");
  assert.ok(rule !== undefined);
  assert.equal(rule.metadata.labels?.release, "kube-prometheus");
  await validateObject(rule);
  await using dir = await tempDir("prometheus-rule-");
  await Deno.writeTextFile(`${dir.path}/rules.yaml`, rulesFile(rule));
  const checked = await promtool(["check", "rules", "rules.yaml"], dir.path);
  assert.equal(checked.code, 0, checked.output);
  assert.match(checked.output, /SUCCESS: 7 rules found/);
  const alerts = (rule.spec as { groups: { rules: RuleAlert[] }[] }).groups.flatMap((group) => group.rules);
  assert.deepEqual(alerts.map((alert) => alert.alert), ALERTS);
  await Deno.writeTextFile(`${dir.path}/tests.yaml`, testFile(CASES, alerts));
  const tested = await promtool(["test", "rules", "tests.yaml"], dir.path);
  assert.equal(tested.code, 0, tested.output);
});

test("PrometheusRule: the selector narrows every alert's series, and a bad selector is refused by the schema", async () => {
  const helm = helm4();
  const objects = await renderOk(helm, {
    set: ["metrics.prometheusRule.enabled=true"],
    setString: ['metrics.prometheusRule.selector=service=~"ouroboros-.*"'],
  });
  const rule = ofKind(objects, "PrometheusRule")[0]!;
  const exprs = (rule.spec as { groups: { rules: { expr: string }[] }[] }).groups.flatMap((group) =>
    group.rules.map((entry) => entry.expr)
  );
  assert.equal(exprs.length, 7);
  for (const expr of exprs) {
    assert.match(expr, /\{namespace="ouroboros",service=~"ouroboros-\.\*"[,}]/, expr);
  }
  const refused = await renderFails(helm, {
    set: ["metrics.prometheusRule.enabled=true", "metrics.prometheusRule.selector=service"],
  });
  assert.ok(namesKey(refused, "selector"), refused);
});

test("PrometheusRule: every alert's runbook_url leads to its own section of docs/troubleshooting.md; extraRules are appended", async () => {
  const helm = helm4();
  const extra = {
    record: "ouroboros:reconciles:rate5m",
    expr: "sum(rate(ouroboros_controller_reconciles_total[5m]))",
  };
  const objects = await renderOk(helm, {
    set: ["metrics.prometheusRule.enabled=true"],
    values: { metrics: { prometheusRule: { extraRules: [extra] } } },
  });
  const rule = ofKind(objects, "PrometheusRule")[0]!;
  const rules = (rule.spec as { groups: { rules: Partial<RuleAlert>[] }[] }).groups.flatMap((group) =>
    group.rules
  );
  assert.deepEqual(rules.at(-1), extra, "the extra rule comes last, as given");
  const anchors = anchorsOf(
    await Deno.readTextFile(new URL("../../docs/troubleshooting.md", import.meta.url)),
  );
  const base = "https://github.com/ouroboros-ts/ouroboros/blob/main/docs/troubleshooting.md#";
  for (const alert of rules.filter((entry) => entry.alert !== undefined)) {
    const url = alert.annotations?.runbook_url ?? "";
    assert.ok(url.startsWith(base), `${alert.alert}: ${url}`);
    assert.equal(url.slice(base.length), alert.alert!.toLowerCase());
    assert.ok(
      anchors.has(url.slice(base.length)),
      `docs/troubleshooting.md has no section for ${alert.alert}`,
    );
  }
  await using dir = await tempDir("prometheus-rule-extra-");
  await Deno.writeTextFile(`${dir.path}/rules.yaml`, rulesFile(rule));
  const checked = await promtool(["check", "rules", "rules.yaml"], dir.path);
  assert.equal(checked.code, 0, checked.output);
  assert.match(checked.output, /SUCCESS: 8 rules found/);
});
