import assert from "node:assert/strict";
import { applyHostsBlock, removeHostsBlock } from "../../../../lib/controller/modes/etc_hosts/hosts_block.ts";
import { DEFAULT_MARKERS } from "../../../../lib/controller/modes/markers.ts";
import { isHostsMarkerProblem } from "../../../../lib/controller/modes/etc_hosts/hosts_problems.ts";
import { prng } from "../../../support/random.ts";
import {
  BEGIN,
  changed,
  CLOUD,
  DEBIAN,
  END,
  expectedBlock,
  FIXTURES,
  IP,
  toCrlf,
  withoutBlock,
} from "./support.ts";

const HOSTS = ["api.example.com", "app.example.com", "shop.example.org"];

Deno.test("the markers are the CoreDNS modes' strings, so one grep finds every ouroboros block", () => {
  assert.equal(BEGIN, DEFAULT_MARKERS.begin);
  assert.equal(END, DEFAULT_MARKERS.end);
});

Deno.test("a Debian hosts file gets the block appended after its last line, nothing else changes", () => {
  assert.equal(changed(applyHostsBlock(DEBIAN, { ip: IP, hosts: HOSTS })), DEBIAN + expectedBlock(IP, HOSTS));
});

Deno.test("every fixture: insert, idempotent re-apply, replace, remove back to the exact original (T-4.5)", async (t) => {
  for (const fixture of FIXTURES) {
    await t.step(fixture.name, () => {
      const inserted = changed(applyHostsBlock(fixture.text, { ip: IP, hosts: HOSTS }));
      assert.ok(inserted.startsWith(fixture.text), "bytes before the block changed");
      const again = applyHostsBlock(inserted, { ip: IP, hosts: HOSTS });
      assert.deepEqual(again, { kind: "unchanged", previousHosts: HOSTS, shadowed: [] });

      const replaced = applyHostsBlock(inserted, { ip: IP, hosts: ["new.example.com"] });
      assert.equal(replaced.kind, "changed");
      if (replaced.kind !== "changed") return;
      assert.deepEqual(replaced.previousHosts, HOSTS);
      assert.equal(replaced.text.split(BEGIN).length, 2, "exactly one BEGIN after a replace");
      assert.ok(replaced.text.includes(`${IP} new.example.com`));
      assert.ok(!replaced.text.includes("api.example.com"));

      assert.equal(
        changed(applyHostsBlock(replaced.text, { ip: IP, hosts: [] })),
        fixture.text,
        "zero hosts",
      );
      assert.equal(changed(removeHostsBlock(replaced.text)), fixture.text, "cleanup");
    });
  }
});

Deno.test("CRLF files get CRLF block lines; LF files get LF (T-4.5)", () => {
  const crlf = toCrlf(DEBIAN);
  assert.equal(
    changed(applyHostsBlock(crlf, { ip: IP, hosts: HOSTS })),
    crlf + expectedBlock(IP, HOSTS, "\r\n"),
  );
  const replaced = changed(
    applyHostsBlock(crlf + expectedBlock(IP, HOSTS, "\r\n"), { ip: IP, hosts: ["x.example.com"] }),
  );
  assert.equal(replaced, crlf + expectedBlock(IP, ["x.example.com"], "\r\n"));
});

Deno.test("no final newline: a line break is added before the block and the file still ends without one (T-4.5)", () => {
  const text = "127.0.0.1 localhost\n10.0.0.1 db.internal";
  const inserted = changed(applyHostsBlock(text, { ip: IP, hosts: ["a.example.com"] }));
  assert.equal(inserted, `${text}\n${expectedBlock(IP, ["a.example.com"], "\n", true)}`);
  const replaced = changed(applyHostsBlock(inserted, { ip: IP, hosts: ["a.example.com", "b.example.com"] }));
  assert.equal(replaced, `${text}\n${expectedBlock(IP, ["a.example.com", "b.example.com"], "\n", true)}`);
  assert.equal(changed(removeHostsBlock(replaced)), text);
});

Deno.test("tabs, comments and odd spacing outside the markers survive a replace byte for byte (T-4.5)", () => {
  const around = `${CLOUD}${
    expectedBlock("10.0.0.1", ["old.example.com"])
  }\t# after the block\t\n10.9.9.9\tlate.internal\n`;
  const edited = changed(applyHostsBlock(around, { ip: IP, hosts: ["new.example.com"] }));
  assert.equal(
    edited,
    `${CLOUD}${expectedBlock(IP, ["new.example.com"])}\t# after the block\t\n10.9.9.9\tlate.internal\n`,
  );
  assert.equal(withoutBlock(edited), withoutBlock(around));
});

Deno.test("an earlier entry for one of our names is kept, and reported as shadowing ours (T-4.5)", () => {
  const text = "127.0.0.1 localhost\n10.0.0.5\tAPP.example.com   app # pinned by the admin\n";
  const edit = applyHostsBlock(text, { ip: IP, hosts: ["app.example.com", "api.example.com"] });
  assert.equal(edit.kind, "changed");
  if (edit.kind !== "changed") return;
  assert.ok(edit.text.startsWith(text), "the admin's entry is untouched and stays first");
  assert.deepEqual(edit.shadowed, ["app.example.com"]);

  const below = `${expectedBlock(IP, ["app.example.com"])}10.0.0.6 app.example.com\n`;
  const after = applyHostsBlock(below, { ip: IP, hosts: ["app.example.com"] });
  assert.deepEqual(after, { kind: "unchanged", previousHosts: ["app.example.com"], shadowed: [] });
});

Deno.test("hosts are written in the order given, a repeated host once", () => {
  const text = changed(
    applyHostsBlock("", { ip: IP, hosts: ["b.example.com", "a.example.com", "b.example.com"] }),
  );
  assert.equal(text, expectedBlock(IP, ["b.example.com", "a.example.com"]));
});

Deno.test("IPv6 and non-canonical IPv4 spellings are written canonically; bad addresses are refused", async (t) => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["fd00::0a", "fd00::a"],
    ["::FFFF:10.0.0.1", "::ffff:10.0.0.1"],
    ["10.96.0.10", "10.96.0.10"],
  ];
  for (const [given, written] of cases) {
    await t.step(given, () => {
      assert.equal(
        changed(applyHostsBlock("", { ip: given, hosts: ["a.example.com"] })),
        expectedBlock(written, ["a.example.com"]),
      );
    });
  }
  for (
    const bad of [
      "",
      "10.0.0",
      "10.0.0.010",
      "10.0.0.256",
      "[::1]",
      "fe80::1%eth0",
      "::1 evil.com",
      "a.b.c.d",
    ]
  ) {
    await t.step(`refused: ${JSON.stringify(bad)}`, () => {
      const edit = applyHostsBlock(DEBIAN, { ip: bad, hosts: ["a.example.com"] });
      assert.equal(edit.kind, "refused");
      if (edit.kind === "refused") assert.equal(edit.problem, "invalid-ip");
    });
  }
});

Deno.test("a proxy IP change rewrites every entry to the new address", () => {
  const old = DEBIAN + expectedBlock("10.96.0.10", HOSTS);
  const edit = applyHostsBlock(old, { ip: "fd00::10", hosts: HOSTS });
  assert.equal(changed(edit), DEBIAN + expectedBlock("fd00::10", HOSTS));
  if (edit.kind === "changed") assert.deepEqual(edit.previousHosts, HOSTS);
});

Deno.test("a host with anything but [a-z0-9.-] is refused, not cleaned, and nothing is written (T-3.1)", async (t) => {
  const withBlock = DEBIAN + expectedBlock(IP, HOSTS);
  for (
    const bad of [
      "App.example.com",
      "a b.example.com",
      "a\nevil.example.com",
      "a#b.example.com",
      "",
      "a_b.com",
    ]
  ) {
    await t.step(JSON.stringify(bad), () => {
      const edit = applyHostsBlock(withBlock, { ip: IP, hosts: ["ok.example.com", bad] });
      assert.equal(edit.kind, "refused");
      if (edit.kind === "refused") assert.equal(edit.problem, "invalid-host");
    });
  }
  assert.equal(
    applyHostsBlock("", { ip: IP, hosts: ["a".repeat(254)] }).kind,
    "refused",
    "longer than 253 characters",
  );
});

Deno.test("zero hosts without a block leaves the file alone", () => {
  for (const fixture of FIXTURES) {
    assert.deepEqual(applyHostsBlock(fixture.text, { ip: IP, hosts: [] }), {
      kind: "unchanged",
      previousHosts: [],
      shadowed: [],
    });
  }
});

Deno.test("marker lines with surrounding whitespace are ours and are kept byte for byte", () => {
  const text = `x 1\n  ${BEGIN}\t\n10.0.0.1 old.example.com\n\n${END}   \nafter\n`;
  const edited = changed(applyHostsBlock(text, { ip: IP, hosts: ["a.example.com"] }));
  assert.equal(edited, `x 1\n  ${BEGIN}\t\n${IP} a.example.com\n${END}   \nafter\n`);
});

Deno.test("damaged markers are refused with a fix, also when removing the block (T-4.6)", async (t) => {
  const entry = `${IP} a.example.com\n`;
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["END before BEGIN", `${END}\n${entry}${BEGIN}\n`, "end-before-begin"],
    ["BEGIN without END", `127.0.0.1 localhost\n${BEGIN}\n${entry}`, "begin-without-end"],
    ["END without BEGIN", `${entry}${END}\n127.0.0.1 localhost\n`, "end-without-begin"],
    ["two BEGINs", `${BEGIN}\n${BEGIN}\n${entry}${END}\n`, "duplicate-begin"],
    ["two ENDs", `${BEGIN}\n${entry}${END}\n${END}\n`, "duplicate-end"],
    ["a copied block", `${BEGIN}\n${entry}${END}\n${BEGIN}\n${entry}${END}\n`, "duplicate-begin"],
    ["lower-cased marker", `${BEGIN.toLowerCase()}\n${entry}${END}\n`, "altered-marker"],
    ["shortened marker", `# === BEGIN ouroboros ===\n${entry}${END}\n`, "altered-marker"],
    ["marker after an entry", `${BEGIN}\n${IP} a.example.com ${END}\n`, "altered-marker"],
    ["a comment in the block", `${BEGIN}\n# mine\n${entry}${END}\n`, "foreign-content-in-block"],
    [
      "a tab-separated entry in the block",
      `${BEGIN}\n${IP}\tb.example.com\n${END}\n`,
      "foreign-content-in-block",
    ],
    [
      "two names on one line",
      `${BEGIN}\n${IP} a.example.com b.example.com\n${END}\n`,
      "foreign-content-in-block",
    ],
    ["an entry with a bad address", `${BEGIN}\n10.0.0 a.example.com\n${END}\n`, "foreign-content-in-block"],
  ];
  for (const [name, text, problem] of cases) {
    await t.step(name, () => {
      for (
        const edit of [applyHostsBlock(text, { ip: IP, hosts: ["a.example.com"] }), removeHostsBlock(text)]
      ) {
        assert.equal(edit.kind, "refused");
        if (edit.kind !== "refused") continue;
        assert.equal(edit.problem, problem);
        assert.ok(isHostsMarkerProblem(edit.problem));
        assert.match(edit.message, /writes nothing until then/);
      }
    });
  }
});

Deno.test("randomized files: insert then remove returns the original bytes; re-apply is a no-op (T-4.5, T-4.9)", () => {
  const random = prng(20240505);
  const pieces = ["127.0.0.1", "\t", " ", "localhost", "# c", "\r", "10.0.0.1 x.internal", "\u00e9", "::1"];
  for (let round = 0; round < 300; round++) {
    let text = "";
    const lines = Math.floor(random() * 6);
    for (let line = 0; line < lines; line++) {
      const parts = Math.floor(random() * 4);
      for (let part = 0; part < parts; part++) text += pieces[Math.floor(random() * pieces.length)];
      if (line < lines - 1 || random() < 0.5) text += random() < 0.3 ? "\r\n" : "\n";
    }
    const hosts = HOSTS.slice(0, 1 + Math.floor(random() * HOSTS.length));
    const inserted = changed(applyHostsBlock(text, { ip: IP, hosts }));
    assert.equal(applyHostsBlock(inserted, { ip: IP, hosts }).kind, "unchanged", JSON.stringify(text));
    assert.equal(changed(removeHostsBlock(inserted)), text, JSON.stringify(text));
  }
});
