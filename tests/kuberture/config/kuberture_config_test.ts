import assert from "node:assert/strict";
import {
  type KubertureConfig,
  type KubertureOutput,
  parseKubertureConfig,
} from "../../../lib/kuberture/config/kuberture_config.ts";

const PATH = "/etc/kuberture/config.yaml";

/** The lines of a YAML file, so a case's line numbers can be read off its array. */
function yaml(...lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

function problems(text: string): readonly string[] {
  const parsed = parseKubertureConfig(text, { path: PATH });
  assert.ok(!parsed.ok, `expected problems, got ${JSON.stringify(parsed)}`);
  return parsed.problems;
}

function config(text: string): KubertureConfig {
  const parsed = parseKubertureConfig(text, { path: PATH });
  assert.ok(parsed.ok, `expected a config, got ${JSON.stringify(parsed)}`);
  return parsed.config;
}

/** An output with every default, as kuberture's. */
function output(
  fields: Pick<KubertureOutput, "name" | "hostnames" | "serviceName"> & Partial<KubertureOutput>,
) {
  return {
    annotationPrefix: "external-dns.alpha.kubernetes.io/",
    recordTTL: 60,
    addressSource: "endpointslice",
    addressType: "IPv4",
    kind: "service",
    ...fields,
  } satisfies KubertureOutput;
}

const DEFAULTS = {
  source: { namespace: "default", serviceName: "kubernetes" },
  metricsBindAddress: ":8080",
  healthProbeBindAddress: ":8081",
  logLevel: undefined,
} as const;

/** One valid output, lines 2–4 of a file starting with `outputs:`. */
const API = ["  - name: api", "    hostname: [api.example.com]", "    serviceName: kuberture-api"];

const HOSTNAME_ACCEPTS = "a list of one or more DNS names such as [api.example.com]: two or more labels of " +
  "letters, digits and '-', optionally *. first and a dot last; not an IP address";
const SERVICE_ACCEPTS =
  "a Service name (lower-case letters, digits and '-', starting with a letter, at most 63 " +
  "characters)";
const NAMESPACE_ACCEPTS = "a namespace name (lower-case letters, digits and '-', at most 63 characters)";
const TOP_ACCEPTS =
  "the config file accepts source, outputs, metricsBindAddress, healthProbeBindAddress, logLevel";
const OUTPUT_ACCEPTS = "an output accepts name, hostname, annotationPrefix, serviceName, recordTTL, " +
  "addressSource, addressType, output";
const TTL_ACCEPTS = "a whole number of seconds from 1 to 86400";
const LISTEN_ACCEPTS =
  "a listen address such as :8080, 0.0.0.0:8080 or [::]:8080, or 0 to turn the listener off";
const OUTPUTS_MISSING =
  "outputs: missing; give a list of one or more outputs: kuberture has nothing to publish " +
  "without one";

// The two examples of the cozystack package README (`kuberture.config` of each), as the chart
// renders them into the ConfigMap.
const SEED_SINGLE = yaml(
  "outputs:",
  "  - name: api",
  "    hostname:",
  "      - api.k8s.example.com",
  "    serviceName: kuberture-api",
  "    addressSource: endpointslice",
  "    recordTTL: 60",
);
const SEED_MULTIPLE = yaml(
  "outputs:",
  "  - name: public",
  "    hostname:",
  "      - api.k8s.example.com",
  "    serviceName: kuberture-public",
  "    addressSource: endpointslice",
  "  - name: internal",
  "    hostname:",
  "      - api-internal.k8s.example.internal",
  "    annotationPrefix: internal-dns.example.com/",
  "    serviceName: kuberture-internal",
  "    addressSource: endpointslice",
);

Deno.test("the seed's single-instance example parses to one output with kuberture's defaults", () => {
  assert.deepEqual(config(SEED_SINGLE), {
    ...DEFAULTS,
    outputs: [output({ name: "api", hostnames: ["api.k8s.example.com"], serviceName: "kuberture-api" })],
  });
});

Deno.test("the seed's two-instance example parses to two outputs, the second with its own prefix", () => {
  assert.deepEqual(config(SEED_MULTIPLE), {
    ...DEFAULTS,
    outputs: [
      output({ name: "public", hostnames: ["api.k8s.example.com"], serviceName: "kuberture-public" }),
      output({
        name: "internal",
        hostnames: ["api-internal.k8s.example.internal"],
        annotationPrefix: "internal-dns.example.com/",
        serviceName: "kuberture-internal",
      }),
    ],
  });
});

Deno.test("every key set: kuberture's full example plus ours (output, logLevel)", () => {
  const text = yaml(
    "source:",
    "  namespace: kube-system",
    "  serviceName: kube-apiserver",
    'metricsBindAddress: ":9090"',
    'healthProbeBindAddress: "127.0.0.1:9091"',
    "logLevel: debug",
    "outputs:",
    "  - name: prod",
    "    hostname:",
    "      - example.com",
    "      - www.example.com",
    '    annotationPrefix: "custom.io/"',
    "    serviceName: my-svc",
    "    recordTTL: 300",
    "    addressSource: node-external",
    "    addressType: IPv6",
    "  - name: records",
    "    hostname: ['*.apps.example.com.']",
    "    serviceName: records",
    "    addressSource: node-public",
    "    addressType: IPv4",
    "    recordTTL: 86400",
    "    output: crd",
  );
  assert.deepEqual(config(text), {
    source: { namespace: "kube-system", serviceName: "kube-apiserver" },
    metricsBindAddress: ":9090",
    healthProbeBindAddress: "127.0.0.1:9091",
    logLevel: "debug",
    outputs: [
      output({
        name: "prod",
        hostnames: ["example.com", "www.example.com"],
        annotationPrefix: "custom.io/",
        serviceName: "my-svc",
        recordTTL: 300,
        addressSource: "node-external",
        addressType: "IPv6",
      }),
      output({
        name: "records",
        hostnames: ["*.apps.example.com."],
        serviceName: "records",
        recordTTL: 86400,
        addressSource: "node-public",
        addressType: "IPv4",
        kind: "crd",
      }),
    ],
  });
});

Deno.test("accepted spellings: JSON, numbers as text, `key:` and ~ as left out, 0 listeners, aliases", async (t) => {
  const cases: readonly [string, string, KubertureConfig][] = [
    [
      "JSON is YAML",
      '{"outputs": [{"name": "api", "hostname": ["api.example.com"], "serviceName": "kuberture-api"}]}',
      {
        ...DEFAULTS,
        outputs: [output({ name: "api", hostnames: ["api.example.com"], serviceName: "kuberture-api" })],
      },
    ],
    [
      "a number where text belongs is its written text, as in kuberture",
      yaml("outputs:", "  - name: 0x10", "    hostname: [api.example.com]", "    serviceName: kuberture-api"),
      {
        ...DEFAULTS,
        outputs: [output({ name: "0x10", hostnames: ["api.example.com"], serviceName: "kuberture-api" })],
      },
    ],
    [
      "keys with no value or ~ take the default",
      yaml(
        "source:",
        "  namespace:",
        "  serviceName: ~",
        "metricsBindAddress:",
        "logLevel: null",
        "outputs:",
        ...API,
        "    annotationPrefix:",
        "    recordTTL: ~",
        "    addressSource:",
        "    addressType:",
        "    output:",
      ),
      {
        ...DEFAULTS,
        outputs: [output({ name: "api", hostnames: ["api.example.com"], serviceName: "kuberture-api" })],
      },
    ],
    [
      "0 turns a listener off, as controller-runtime's does; :0 picks a port",
      yaml("outputs:", ...API, 'metricsBindAddress: "0"', 'healthProbeBindAddress: ":0"'),
      {
        ...DEFAULTS,
        metricsBindAddress: "0",
        healthProbeBindAddress: ":0",
        outputs: [output({ name: "api", hostnames: ["api.example.com"], serviceName: "kuberture-api" })],
      },
    ],
    [
      "an anchor reused through an alias",
      yaml(
        "outputs:",
        ...API,
        "    recordTTL: &ttl 300",
        "  - name: b",
        "    hostname: [b.example.com]",
        "    serviceName: b",
        "    recordTTL: *ttl",
      ),
      {
        ...DEFAULTS,
        outputs: [
          output({
            name: "api",
            hostnames: ["api.example.com"],
            serviceName: "kuberture-api",
            recordTTL: 300,
          }),
          output({ name: "b", hostnames: ["b.example.com"], serviceName: "b", recordTTL: 300 }),
        ],
      },
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(config(text), expected));
  }
});

/** [what the case shows, the file, every problem expected, in order]. */
type Case = readonly [string, string, readonly string[]];

Deno.test("the file as a whole: empty, not a mapping, not YAML (with line and column), unknown keys", async (t) => {
  const cases: readonly Case[] = [
    ["an empty file has no outputs", "", [`${PATH}: ${OUTPUTS_MISSING}`]],
    ["comments only", "# nothing yet\n", [`${PATH}: ${OUTPUTS_MISSING}`]],
    [
      "a list instead of a mapping",
      yaml("- name: api"),
      [
        `${PATH}:1:1: expected a mapping (the config file: source, outputs, metricsBindAddress, ` +
        "healthProbeBindAddress, logLevel), got a list",
      ],
    ],
    [
      "plain text",
      yaml("hello"),
      [
        `${PATH}:1:1: expected a mapping (the config file: source, outputs, metricsBindAddress, ` +
        'healthProbeBindAddress, logLevel), got the text "hello"',
      ],
    ],
    [
      "an unclosed flow list",
      yaml("outputs: [", "source: {}"),
      [`${PATH}:2:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`],
    ],
    [
      "a mis-indented key",
      yaml("outputs:", "  - name: api", "   hostname: [a.example.com]"),
      [`${PATH}:3:1: not valid YAML: Sequence item without - indicator`],
    ],
    ["a tab as indentation", "outputs:\n\t- name: api\n", [
      `${PATH}:2:1: not valid YAML: Tabs are not allowed as indentation`,
    ]],
    [
      "a key written twice",
      yaml("outputs:", ...API, "outputs: []"),
      [`${PATH}:5:1: not valid YAML: the key outputs appears twice in one mapping`],
    ],
    [
      "two documents",
      yaml("outputs: []", "---", "outputs: []"),
      [`${PATH}:2:1: not valid YAML: the file holds more than one YAML document (a second ---); it must hold one`],
    ],
    [
      "an unknown key close to a known one",
      yaml("outputs:", ...API, "metricBindAddress: ':9090'"),
      [`${PATH}:5:1: metricBindAddress: unknown key (did you mean metricsBindAddress?); ${TOP_ACCEPTS}`],
    ],
    [
      "an unknown key that differs only in case",
      yaml("Outputs:", ...API),
      [
        `${PATH}: ${OUTPUTS_MISSING}`,
        `${PATH}:1:1: Outputs: unknown key (did you mean outputs?); ${TOP_ACCEPTS}`,
      ],
    ],
    [
      "Helm values pasted whole",
      yaml("config:", "  outputs: []"),
      [
        `${PATH}: ${OUTPUTS_MISSING}`,
        `${PATH}:1:1: config: unknown key (this looks like Helm values: the file holds what is under config:); ` +
        TOP_ACCEPTS,
      ],
    ],
    ["a key that is not text", yaml("1: x", "outputs:", ...API), [
      `${PATH}:1:1: a key must be text, got the number 1`,
    ]],
    [
      "an alias to no anchor",
      yaml("outputs:", ...API.slice(0, 1), "    hostname: *hosts", ...API.slice(2)),
      [`${PATH}:3:15: outputs[0].hostname: the alias *hosts names no anchor`],
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(problems(text), expected));
  }
});

Deno.test("source: a mapping of namespace (a namespace name) and serviceName (a Service name)", async (t) => {
  const cases: readonly Case[] = [
    [
      "not a mapping",
      yaml("source: default/kubernetes", "outputs:", ...API),
      [`${PATH}:1:9: source: expected a mapping (source: namespace, serviceName), got the text "default/kubernetes"`],
    ],
    [
      "an unknown key",
      yaml("source:", "  name: kubernetes", "outputs:", ...API),
      [`${PATH}:2:3: source.name: unknown key; source accepts namespace, serviceName`],
    ],
    [
      "an upper-case namespace",
      yaml("source:", "  namespace: Default", "outputs:", ...API),
      [`${PATH}:2:14: source.namespace: "Default" is not accepted; give ${NAMESPACE_ACCEPTS}`],
    ],
    [
      "an empty namespace",
      yaml("source:", '  namespace: ""', "outputs:", ...API),
      [`${PATH}:2:14: source.namespace: empty; give ${NAMESPACE_ACCEPTS}, or leave the key out for default`],
    ],
    [
      "a Service name starting with a digit",
      yaml("source:", "  serviceName: 1kube", "outputs:", ...API),
      [`${PATH}:2:16: source.serviceName: "1kube" is not accepted; give ${SERVICE_ACCEPTS}`],
    ],
    [
      "a list as the Service name",
      yaml("source:", "  serviceName: [kubernetes]", "outputs:", ...API),
      [`${PATH}:2:16: source.serviceName: expected text, got a list`],
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(problems(text), expected));
  }
});

Deno.test("outputs: at least one, each a mapping of known keys", async (t) => {
  const cases: readonly Case[] = [
    ["left out", yaml("source: {}"), [`${PATH}: ${OUTPUTS_MISSING}`]],
    ["written with no value", yaml("outputs:"), [`${PATH}:1:1: ${OUTPUTS_MISSING}`]],
    [
      "an empty list",
      yaml("outputs: []"),
      [`${PATH}:1:10: outputs: the list is empty; give a list of one or more outputs`],
    ],
    [
      "a mapping instead of a list",
      yaml("outputs:", "  name: api"),
      [`${PATH}:2:3: outputs: expected a list of one or more outputs, got a mapping`],
    ],
    [
      "an empty item",
      yaml("outputs:", "  -", ...API),
      [
        `${PATH}:2:4: outputs[0]: expected a mapping (an output: name, hostname, annotationPrefix, serviceName, ` +
        "recordTTL, addressSource, addressType, output), got nothing",
      ],
    ],
    [
      "a text item",
      yaml("outputs:", "  - api.example.com"),
      [
        `${PATH}:2:5: outputs[0]: expected a mapping (an output: name, hostname, annotationPrefix, serviceName, ` +
        'recordTTL, addressSource, addressType, output), got the text "api.example.com"',
      ],
    ],
    [
      "kuberture's README key serviceNamespace",
      yaml("outputs:", ...API, "    serviceNamespace: default"),
      [
        `${PATH}:5:5: outputs[0].serviceNamespace: unknown key (kuberture's README shows it, but kuberture ` +
        "writes every output's Service in its own namespace, and so does ouroboros; remove it); " +
        OUTPUT_ACCEPTS,
      ],
    ],
    [
      "hostnames for hostname",
      yaml("outputs:", "  - name: api", "    hostnames: [api.example.com]", "    serviceName: kuberture-api"),
      [
        `${PATH}:2:5: outputs[0].hostname: missing; give ${HOSTNAME_ACCEPTS}`,
        `${PATH}:3:5: outputs[0].hostnames: unknown key (did you mean hostname? The key is singular and takes ` +
        `a list); ${OUTPUT_ACCEPTS}`,
      ],
    ],
    [
      "a misspelt key",
      yaml("outputs:", ...API, "    recordTtl: 30"),
      [`${PATH}:5:5: outputs[0].recordTtl: unknown key (did you mean recordTTL?); ${OUTPUT_ACCEPTS}`],
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(problems(text), expected));
  }
});

Deno.test("an output's name, hostname and serviceName are required and checked", async (t) => {
  const cases: readonly Case[] = [
    [
      "all three missing: each named, at the output",
      yaml("outputs:", "  - addressSource: endpointslice"),
      [
        `${PATH}:2:5: outputs[0].name: missing; give a name, unique across outputs`,
        `${PATH}:2:5: outputs[0].hostname: missing; give ${HOSTNAME_ACCEPTS}`,
        `${PATH}:2:5: outputs[0].serviceName: missing; give ${SERVICE_ACCEPTS}`,
      ],
    ],
    [
      "all three with no value: each named, at its key",
      yaml("outputs:", "  - name:", "    hostname:", "    serviceName:"),
      [
        `${PATH}:2:5: outputs[0].name: missing; give a name, unique across outputs`,
        `${PATH}:3:5: outputs[0].hostname: missing; give ${HOSTNAME_ACCEPTS}`,
        `${PATH}:4:5: outputs[0].serviceName: missing; give ${SERVICE_ACCEPTS}`,
      ],
    ],
    [
      "an empty name and serviceName",
      yaml("outputs:", '  - name: ""', "    hostname: [api.example.com]", "    serviceName: ''"),
      [
        `${PATH}:2:11: outputs[0].name: empty; give a name, unique across outputs`,
        `${PATH}:4:18: outputs[0].serviceName: empty; give ${SERVICE_ACCEPTS}`,
      ],
    ],
    [
      "a name that is a mapping",
      yaml(
        "outputs:",
        "  - name: {a: 1}",
        "    hostname: [api.example.com]",
        "    serviceName: kuberture-api",
      ),
      [`${PATH}:2:11: outputs[0].name: expected text, got a mapping`],
    ],
    [
      "a hostname written as text, not a list",
      yaml("outputs:", "  - name: api", "    hostname: api.example.com", "    serviceName: kuberture-api"),
      [
        `${PATH}:3:15: outputs[0].hostname: expected a list of hostnames, got the text "api.example.com"; ` +
        "write it as a list: [api.example.com]",
      ],
    ],
    [
      "an empty hostname list",
      yaml("outputs:", "  - name: api", "    hostname: []", "    serviceName: kuberture-api"),
      [`${PATH}:3:15: outputs[0].hostname: the list is empty; give ${HOSTNAME_ACCEPTS}`],
    ],
    [
      "hostname items that are not text",
      yaml(
        "outputs:",
        "  - name: api",
        "    hostname: [[a.example.com], ~, {a: 1}]",
        "    serviceName: kuberture-api",
      ),
      [
        `${PATH}:3:16: outputs[0].hostname[0]: expected text, got a list`,
        `${PATH}:3:33: outputs[0].hostname[1]: expected text, got nothing`,
        `${PATH}:3:36: outputs[0].hostname[2]: expected text, got a mapping`,
      ],
    ],
    [
      "each bad hostname of a list, at its own position",
      yaml(
        "outputs:",
        "  - name: api",
        "    hostname:",
        "      - api.example.com",
        "      - localhost",
        "      - 10.0.0.1",
        "      - api_internal.example.com",
        "    serviceName: kuberture-api",
      ),
      [
        `${PATH}:5:9: outputs[0].hostname[1]: "localhost" is a single label; give a name of at least two ` +
        "labels, such as api.example.com",
        `${PATH}:6:9: outputs[0].hostname[2]: "10.0.0.1" is an IP address or ends in a numeric label; give a ` +
        "DNS name (the addresses come from addressSource)",
        `${PATH}:7:9: outputs[0].hostname[3]: "api_internal.example.com" contains "_"; a hostname holds only ` +
        "letters, digits, '-' and '.' (internationalised names as xn-- A-labels)",
      ],
    ],
    [
      "a serviceName with upper case and an underscore",
      yaml("outputs:", "  - name: api", "    hostname: [api.example.com]", "    serviceName: Kuberture_API"),
      [`${PATH}:4:18: outputs[0].serviceName: "Kuberture_API" is not accepted; give ${SERVICE_ACCEPTS}`],
    ],
    [
      "a serviceName with spaces (kuberture's own case)",
      yaml("outputs:", "  - name: api", "    hostname: [api.example.com]", '    serviceName: "my service"'),
      [`${PATH}:4:18: outputs[0].serviceName: "my service" is not accepted; give ${SERVICE_ACCEPTS}`],
    ],
    [
      "a serviceName of 64 characters",
      yaml(
        "outputs:",
        "  - name: api",
        "    hostname: [api.example.com]",
        `    serviceName: ${"a".repeat(64)}`,
      ),
      [`${PATH}:4:18: outputs[0].serviceName: "${"a".repeat(64)}" is not accepted; give ${SERVICE_ACCEPTS}`],
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(problems(text), expected));
  }
});

Deno.test("annotationPrefix, recordTTL, addressSource, addressType and output take only what they accept", async (t) => {
  const withKey = (line: string) => yaml("outputs:", ...API, line);
  const cases: readonly Case[] = [
    [
      "an empty annotationPrefix (the chart schema refuses it too)",
      withKey('    annotationPrefix: ""'),
      [
        `${PATH}:5:23: outputs[0].annotationPrefix: empty; give a DNS subdomain followed by '/', such as ` +
        "internal-dns.example.com/, or leave the key out for external-dns.alpha.kubernetes.io/",
      ],
    ],
    [
      "an annotationPrefix without the trailing slash",
      withKey("    annotationPrefix: internal-dns.example.com"),
      [
        `${PATH}:5:23: outputs[0].annotationPrefix: "internal-dns.example.com" does not end with '/'; ` +
        "external-dns reads <prefix>hostname, <prefix>target and <prefix>ttl, so the prefix must end with '/', " +
        "such as internal-dns.example.com/",
      ],
    ],
    [
      "an annotationPrefix the API server would refuse",
      withKey("    annotationPrefix: Internal_DNS/"),
      [
        `${PATH}:5:23: outputs[0].annotationPrefix: "Internal_DNS/" is not a DNS subdomain followed by '/' ` +
        "(lower-case letters, digits, '-' and '.'), which the API server requires of an annotation key's " +
        "prefix; such as internal-dns.example.com/",
      ],
    ],
    [
      "an annotationPrefix on a DNSEndpoint output",
      yaml("outputs:", ...API, "    output: crd", "    annotationPrefix: internal-dns.example.com/"),
      [
        `${PATH}:6:23: outputs[0].annotationPrefix: applies to output: service only; a DNSEndpoint ` +
        "(output: crd) carries its records in spec.endpoints, so remove the key",
      ],
    ],
    [
      "recordTTL 0, which kuberture's chart schema refuses too",
      withKey("    recordTTL: 0"),
      [
        `${PATH}:5:16: outputs[0].recordTTL: 0 is not accepted (kuberture's chart schema refuses it too; its code read 0 as 60); ` +
        `give ${TTL_ACCEPTS}, or leave the key out for 60`,
      ],
    ],
    [
      "a negative recordTTL",
      withKey("    recordTTL: -1"),
      [`${PATH}:5:16: outputs[0].recordTTL: -1 is out of range; give ${TTL_ACCEPTS}, or leave the key out for 60`],
    ],
    [
      "a recordTTL over a day",
      withKey("    recordTTL: 86401"),
      [`${PATH}:5:16: outputs[0].recordTTL: 86401 is out of range; give ${TTL_ACCEPTS}, or leave the key out for 60`],
    ],
    [
      "a recordTTL in quotes",
      withKey('    recordTTL: "60"'),
      [`${PATH}:5:16: outputs[0].recordTTL: expected ${TTL_ACCEPTS}, got the text "60"`],
    ],
    [
      "a fractional recordTTL",
      withKey("    recordTTL: 60.5"),
      [`${PATH}:5:16: outputs[0].recordTTL: expected ${TTL_ACCEPTS}, got the number 60.5`],
    ],
    [
      "a boolean recordTTL",
      withKey("    recordTTL: true"),
      [`${PATH}:5:16: outputs[0].recordTTL: expected ${TTL_ACCEPTS}, got the boolean true`],
    ],
    [
      "an unknown addressSource",
      withKey("    addressSource: magic"),
      [
        `${PATH}:5:20: outputs[0].addressSource: "magic" is not accepted; give one of endpointslice, ` +
        "node-internal, node-external, node-public",
      ],
    ],
    [
      "an empty addressSource",
      withKey('    addressSource: ""'),
      [
        `${PATH}:5:20: outputs[0].addressSource: empty; give one of endpointslice, node-internal, node-external, ` +
        "node-public, or leave the key out for endpointslice",
      ],
    ],
    [
      "an addressType in the wrong case",
      withKey("    addressType: ipv6"),
      [`${PATH}:5:18: outputs[0].addressType: "ipv6" is not accepted (did you mean IPv6?); give one of IPv4, IPv6, Both`],
    ],
    [
      "an unknown addressType",
      withKey("    addressType: IPv8"),
      [`${PATH}:5:18: outputs[0].addressType: "IPv8" is not accepted; give one of IPv4, IPv6, Both`],
    ],
    [
      "an empty addressType",
      withKey('    addressType: ""'),
      [
        `${PATH}:5:18: outputs[0].addressType: empty; give one of IPv4, IPv6, Both, or leave the key out for IPv4`,
      ],
    ],
    [
      "an unknown output",
      withKey("    output: dnsendpoint"),
      [`${PATH}:5:13: outputs[0].output: "dnsendpoint" is not accepted; give one of service, crd`],
    ],
    [
      "an output in upper case",
      withKey("    output: CRD"),
      [`${PATH}:5:13: outputs[0].output: "CRD" is not accepted (did you mean crd?); give one of service, crd`],
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(problems(text), expected));
  }
});

Deno.test("metricsBindAddress, healthProbeBindAddress and logLevel", async (t) => {
  const withKey = (line: string) => yaml("outputs:", ...API, line);
  const cases: readonly Case[] = [
    [
      "a port out of range",
      withKey('metricsBindAddress: ":80800"'),
      [
        `${PATH}:5:21: metricsBindAddress: ":80800" is not accepted (port "80800" is not a number from 0 to ` +
        `65535); give ${LISTEN_ACCEPTS}`,
      ],
    ],
    [
      "a port without a colon",
      withKey("healthProbeBindAddress: 8081"),
      [
        `${PATH}:5:25: healthProbeBindAddress: "8081" is not accepted (missing ':' before the port); give ` +
        LISTEN_ACCEPTS,
      ],
    ],
    [
      "an empty address",
      withKey('healthProbeBindAddress: ""'),
      [`${PATH}:5:25: healthProbeBindAddress: empty; give ${LISTEN_ACCEPTS}, or leave the key out for :8081`],
    ],
    [
      "an unknown logLevel",
      withKey("logLevel: verbose"),
      [`${PATH}:5:11: logLevel: "verbose" is not accepted; give one of debug, info, warn, error`],
    ],
    [
      "a logLevel in upper case",
      withKey("logLevel: DEBUG"),
      [`${PATH}:5:11: logLevel: "DEBUG" is not accepted (did you mean debug?); give one of debug, info, warn, error`],
    ],
    [
      "an empty logLevel",
      withKey('logLevel: ""'),
      [
        `${PATH}:5:11: logLevel: empty; give one of debug, info, warn, error, or leave the key out for the ` +
        "--log-level flag",
      ],
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(problems(text), expected));
  }
});

Deno.test("names, serviceNames and hostnames are unique across outputs, and each message names both outputs", async (t) => {
  const cases: readonly Case[] = [
    [
      "two outputs of one name",
      yaml(
        "outputs:",
        ...API,
        "  - name: api",
        "    hostname: [b.example.com]",
        "    serviceName: b",
      ),
      [`${PATH}:5:11: outputs[1].name: outputs[1] and outputs[0] are both named "api"; output names must be unique`],
    ],
    [
      "two outputs writing one Service",
      yaml(
        "outputs:",
        ...API,
        "  - name: internal",
        "    hostname: [b.example.com]",
        "    serviceName: kuberture-api",
      ),
      [
        `${PATH}:7:18: outputs[1].serviceName: output "internal" (outputs[1]) and output "api" (outputs[0]) both ` +
        'write "kuberture-api"; each output needs its own serviceName',
      ],
    ],
    [
      "two outputs publishing one hostname",
      yaml(
        "outputs:",
        ...API,
        "  - name: internal",
        "    hostname: [b.example.com, api.example.com]",
        "    serviceName: b",
      ),
      [
        `${PATH}:6:31: outputs[1].hostname[1]: output "internal" (outputs[1]) and output "api" (outputs[0]) (at ` +
        'outputs[0].hostname[0]) both publish "api.example.com"; a hostname belongs to one output only',
      ],
    ],
    [
      "one hostname in another case and with a trailing dot",
      yaml(
        "outputs:",
        ...API,
        "  - name: internal",
        "    hostname: [API.Example.com.]",
        "    serviceName: b",
      ),
      [
        `${PATH}:6:16: outputs[1].hostname[0]: output "internal" (outputs[1]) and output "api" (outputs[0]) (at ` +
        'outputs[0].hostname[0]) both publish "API.Example.com." (the same name as "api.example.com"); a ' +
        "hostname belongs to one output only",
      ],
    ],
    [
      "one hostname twice in one output",
      yaml(
        "outputs:",
        "  - name: api",
        "    hostname: [api.example.com, api.example.com]",
        "    serviceName: a",
      ),
      [
        `${PATH}:3:33: outputs[0].hostname[1]: "api.example.com" is listed twice in output "api" (outputs[0]) ` +
        "(also at outputs[0].hostname[0]); give each hostname once",
      ],
    ],
    [
      "an output without a name is named by its place",
      yaml("outputs:", ...API, "  - hostname: [api.example.com]", "    serviceName: b"),
      [
        `${PATH}:5:5: outputs[1].name: missing; give a name, unique across outputs`,
        `${PATH}:5:16: outputs[1].hostname[0]: outputs[1] and output "api" (outputs[0]) (at ` +
        'outputs[0].hostname[0]) both publish "api.example.com"; a hostname belongs to one output only',
      ],
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(problems(text), expected));
  }
});

Deno.test("every problem of a file is reported at once, in the order of the file", () => {
  const text = yaml(
    "source:",
    "  namespace: Default",
    "outputs:",
    "  - name: a",
    "    hostname: [localhost]",
    "    serviceName: Svc",
    "    recordTTL: 0",
    "  - name: a",
    "    hostname: [b.example.com]",
    "    serviceName: b",
    "    addressSource: node",
    "logLevel: loud",
    "extra: 1",
  );
  assert.deepEqual(problems(text), [
    `${PATH}:2:14: source.namespace: "Default" is not accepted; give ${NAMESPACE_ACCEPTS}`,
    `${PATH}:5:16: outputs[0].hostname[0]: "localhost" is a single label; give a name of at least two labels, ` +
    "such as api.example.com",
    `${PATH}:6:18: outputs[0].serviceName: "Svc" is not accepted; give ${SERVICE_ACCEPTS}`,
    `${PATH}:7:16: outputs[0].recordTTL: 0 is not accepted (kuberture's chart schema refuses it too; its code read 0 as 60); give ` +
    `${TTL_ACCEPTS}, or leave the key out for 60`,
    `${PATH}:8:11: outputs[1].name: outputs[1] and outputs[0] are both named "a"; output names must be unique`,
    `${PATH}:11:20: outputs[1].addressSource: "node" is not accepted; give one of endpointslice, node-internal, ` +
    "node-external, node-public",
    `${PATH}:12:11: logLevel: "loud" is not accepted; give one of debug, info, warn, error`,
    `${PATH}:13:1: extra: unknown key; ${TOP_ACCEPTS}`,
  ]);
});
