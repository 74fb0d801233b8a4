/**
 * par's proxy ConfigMap: the `{{ .dnsResolver }}` tag rendered with this server's address, the
 * template kept for the next address, user edits respected, nothing else touched.
 */

import assert from "node:assert/strict";
import {
  PAR_TEMPLATE_ANNOTATION,
  type ProxyConfigRender,
  renderProxyConfig,
  renderTemplate,
} from "../../../lib/dns/par/render_proxy_config.ts";
import { type ConfigMap, decodeConfigMap } from "../../../lib/resources/config_map.ts";
import type { Json } from "../../support/fake_apiserver/json.ts";
import { mergePatch } from "../../support/fake_apiserver/merge_patch.ts";
import { prng } from "../../support/random.ts";

const NGINX =
  "server {\n  listen 8080;\n  location / {\n    resolver {{ .dnsResolver }};\n    proxy_pass http://$http_host$request_uri;\n  }\n}";

function raw(data: Record<string, string>, annotations: Record<string, string> = {}): Json {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "proxy",
      namespace: "par",
      resourceVersion: "1",
      labels: { "par.dev/proxy-config": "true" },
      annotations,
    },
    data,
  };
}

function decode(value: Json): ConfigMap {
  const decoded = decodeConfigMap(value);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}

/** The ConfigMap after `result` is written (or as it is when nothing is). */
function written(before: Json, result: ProxyConfigRender): Json {
  return result.kind === "write" ? mergePatch(before, result.patch as Json) : before;
}

function dataOf(value: Json): Record<string, string> {
  return (value as { data: Record<string, string> }).data;
}

function annotationOf(value: Json): string | undefined {
  return (value as { metadata: { annotations?: Record<string, string> } }).metadata.annotations
    ?.[PAR_TEMPLATE_ANNOTATION];
}

Deno.test("renderProxyConfig: the tag becomes the address; the template is kept in the annotation", () => {
  const before = raw({ "server-block.conf": NGINX, "other.conf": "keep {{ .other }} as is" });
  const result = renderProxyConfig(decode(before), "10.96.0.53");
  assert.equal(result.kind, "write");
  assert.ok(result.kind === "write");
  assert.deepEqual(result.changedKeys, ["server-block.conf"]);
  const after = written(before, result);
  assert.equal(dataOf(after)["server-block.conf"], NGINX.replace("{{ .dnsResolver }}", "10.96.0.53"));
  assert.equal(dataOf(after)["other.conf"], "keep {{ .other }} as is", "other template syntax is untouched");
  assert.deepEqual(JSON.parse(annotationOf(after)!), {
    resolver: "10.96.0.53",
    data: { "server-block.conf": NGINX },
  });
  assert.deepEqual(result.rendered, { "server-block.conf": dataOf(after)["server-block.conf"] });
  assert.deepEqual(renderProxyConfig(decode(after), "10.96.0.53"), {
    kind: "unchanged",
    rendered: result.rendered,
  });
});

Deno.test("renderProxyConfig: a new address renders the kept template again", () => {
  const first = written(
    raw({ "nginx.conf": NGINX }),
    renderProxyConfig(decode(raw({ "nginx.conf": NGINX })), "10.96.0.53"),
  );
  const second = renderProxyConfig(decode(first), "10.96.0.99");
  assert.ok(second.kind === "write");
  const after = written(first, second);
  assert.match(dataOf(after)["nginx.conf"]!, /resolver 10\.96\.0\.99;/);
  assert.equal(JSON.parse(annotationOf(after)!).resolver, "10.96.0.99");
});

Deno.test("renderProxyConfig: which spellings are the tag", () => {
  const cases: [string, string][] = [
    ["{{ .dnsResolver }}", "R"],
    ["{{.dnsResolver}}", "R"],
    ["{{   .dnsResolver\t}}", "R"],
    ["a {{ .dnsResolver }} b {{.dnsResolver}} c", "a R b R c"],
    ["{{ .DnsResolver }}", "{{ .DnsResolver }}"],
    ["{{- .dnsResolver -}}", "{{- .dnsResolver -}}"],
    ["{{ .dnsResolver | quote }}", "{{ .dnsResolver | quote }}"],
    ["{{ `{{ .dnsResolver }}` }}", "{{ `R` }}"],
    ["{{ .dns Resolver }}", "{{ .dns Resolver }}"],
    ["$1 {{ .dnsResolver }} $&", "$1 R $&"],
  ];
  for (const [template, expected] of cases) assert.equal(renderTemplate(template, "R"), expected, template);
  assert.equal(renderTemplate("{{ .dnsResolver }}", "$&$1"), "$&$1", "the address is inserted literally");
});

Deno.test("renderProxyConfig: a rendered value someone edited is theirs; the tag brought back is the new template", () => {
  const rendered = written(
    raw({ a: "resolver {{ .dnsResolver }};", b: "x {{ .dnsResolver }}" }),
    renderProxyConfig(
      decode(raw({ a: "resolver {{ .dnsResolver }};", b: "x {{ .dnsResolver }}" })),
      "10.0.0.1",
    ),
  );
  const edited = mergePatch(rendered, { data: { a: "resolver 8.8.8.8;" } });
  const afterEdit = renderProxyConfig(decode(edited), "10.0.0.2");
  assert.ok(afterEdit.kind === "write");
  assert.deepEqual(afterEdit.changedKeys, ["b"], "a is no longer rendered");
  const next = written(edited, afterEdit);
  assert.equal(dataOf(next).a, "resolver 8.8.8.8;");
  assert.equal(dataOf(next).b, "x 10.0.0.2");
  assert.deepEqual(JSON.parse(annotationOf(next)!).data, { b: "x {{ .dnsResolver }}" });

  const tagBack = mergePatch(next, { data: { a: "resolver {{.dnsResolver}} valid=30s;" } });
  const afterTag = renderProxyConfig(decode(tagBack), "10.0.0.2");
  assert.ok(afterTag.kind === "write");
  const final = written(tagBack, afterTag);
  assert.equal(dataOf(final).a, "resolver 10.0.0.2 valid=30s;");
  assert.deepEqual(JSON.parse(annotationOf(final)!).data, {
    a: "resolver {{.dnsResolver}} valid=30s;",
    b: "x {{ .dnsResolver }}",
  });
});

Deno.test("renderProxyConfig: when no template is left, the annotation goes", () => {
  const rendered = written(
    raw({ a: "{{ .dnsResolver }}" }),
    renderProxyConfig(decode(raw({ a: "{{ .dnsResolver }}" })), "10.0.0.1"),
  );
  const edited = mergePatch(rendered, { data: { a: "8.8.8.8" } });
  const result = renderProxyConfig(decode(edited), "10.0.0.1");
  assert.deepEqual(result, {
    kind: "write",
    rendered: {},
    patch: { metadata: { annotations: { [PAR_TEMPLATE_ANNOTATION]: null } } },
    changedKeys: [],
  });
  assert.equal(annotationOf(written(edited, result)), undefined);
  const removedKey = mergePatch(rendered, { data: { a: null, b: "plain" } });
  assert.equal(
    renderProxyConfig(decode(removedKey), "10.0.0.1").kind,
    "write",
    "a deleted key drops its template",
  );
});

Deno.test("renderProxyConfig: a ConfigMap with no tag and no template is not this server's business", () => {
  assert.deepEqual(renderProxyConfig(decode(raw({ a: "resolver 10.0.0.1;" })), "10.0.0.1"), {
    kind: "not-templated",
  });
});

Deno.test("renderProxyConfig: an unreadable annotation is said, and replaced from the tags", () => {
  for (const text of ["{", '{"resolver": 1, "data": {}}', '{"resolver": "x", "data": {"a": 1}}']) {
    const before = raw({ a: "{{ .dnsResolver }}" }, { [PAR_TEMPLATE_ANNOTATION]: text });
    const result = renderProxyConfig(decode(before), "10.0.0.1");
    assert.ok(result.kind === "write", text);
    assert.match(
      result.notice ?? "",
      /^its annotation ouroboros\.dev\/par-template (is not JSON|is not \{|has a value)/,
    );
    assert.deepEqual(JSON.parse(annotationOf(written(before, result))!), {
      resolver: "10.0.0.1",
      data: { a: "{{ .dnsResolver }}" },
    });
  }
  const untagged = raw({ a: "plain" }, { [PAR_TEMPLATE_ANNOTATION]: "{" });
  const result = renderProxyConfig(decode(untagged), "10.0.0.1");
  assert.ok(result.kind === "write", "the broken annotation is removed");
  assert.match(result.notice ?? "", /is not JSON/);
});

Deno.test("renderProxyConfig: rendering settles, keeps every other character, follows every address (property, seeded)", () => {
  const random = prng(4242);
  const pieces = [
    "{{ .dnsResolver }}",
    "{{.dnsResolver}}",
    "{{ .other }}",
    "{{",
    "}}",
    "resolver ",
    ";\n",
    "$&",
    "`",
    "é",
    " ",
  ];
  const addresses = ["10.96.0.53", "10.96.0.54", "fd00::53"];
  for (let round = 0; round < 300; round++) {
    const data: Record<string, string> = {};
    for (let key = 0; key < 1 + Math.floor(random() * 3); key++) {
      data[`k${key}`] = Array.from(
        { length: Math.floor(random() * 8) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join("");
    }
    let current = raw(data);
    for (let step = 0; step < 3; step++) {
      const address = addresses[Math.floor(random() * addresses.length)]!;
      const result = renderProxyConfig(decode(current), address);
      current = written(current, result);
      const again = renderProxyConfig(decode(current), address);
      assert.ok(
        again.kind === "unchanged" || again.kind === "not-templated",
        `round ${round}: settles (${again.kind})`,
      );
      for (const [key, template] of Object.entries(data)) {
        const expected = /\{\{ ?\.dnsResolver ?\}\}/.test(template)
          ? template.replaceAll("{{ .dnsResolver }}", address).replaceAll("{{.dnsResolver}}", address)
          : template;
        assert.equal(dataOf(current)[key], expected, `round ${round} step ${step} key ${key}`);
      }
    }
  }
});
