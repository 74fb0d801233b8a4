/**
 * Fixtures and helpers for the etc-hosts tests, written independently of the code under test
 * (the block is spelled out here, not rendered by the editor).
 *
 * @module
 */

import assert from "node:assert/strict";
import type { HostsEdit } from "../../../../lib/controller/modes/etc_hosts/hosts_block.ts";

export const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
export const END = "# === END ouroboros ===";
export const IP = "10.96.0.10";

/** A Debian-style node file: tabs, a blank line, comments, IPv6 entries. */
export const DEBIAN = "127.0.0.1\tlocalhost\n" +
  "127.0.1.1\tnode-1.example.internal\tnode-1\n" +
  "\n" +
  "# The following lines are desirable for IPv6 capable hosts\n" +
  "::1     localhost ip6-localhost ip6-loopback\n" +
  "ff02::1 ip6-allnodes\n" +
  "ff02::2 ip6-allrouters\n";

/** A cloud image's file, where cloud-init appended an entry and a comment with odd spacing. */
export const CLOUD = "# Your system has configured 'manage_etc_hosts' as True.\n" +
  "#   /etc/cloud/templates/hosts.debian.tmpl\n" +
  "127.0.0.1 localhost\n" +
  "  10.0.0.5   ip-10-0-0-5.ec2.internal ip-10-0-0-5   # added by cloud-init\n" +
  "\t\n";

/** One text fixture. */
export interface HostsFixture {
  readonly name: string;
  readonly text: string;
}

/** `text` with every LF turned into CRLF. */
export function toCrlf(text: string): string {
  return text.replaceAll("\n", "\r\n");
}

/** Every fixture shape the editor must keep byte for byte. */
export const FIXTURES: readonly HostsFixture[] = [
  { name: "debian (tabs, comments, blank line)", text: DEBIAN },
  { name: "cloud-init (leading spaces, trailing comment)", text: CLOUD },
  { name: "CRLF", text: toCrlf(DEBIAN) },
  { name: "no final newline", text: DEBIAN.slice(0, -1) },
  { name: "CRLF without final newline", text: toCrlf(DEBIAN).slice(0, -2) },
  { name: "empty file", text: "" },
  { name: "only a newline", text: "\n" },
  { name: "lone CR at the end", text: "127.0.0.1 localhost\r" },
  { name: "Latin-1 comment byte", text: "# h\u00f4te de Fran\u00e7ois\n127.0.0.1 localhost\n" },
];

/** The block lines we expect, spelled out (terminators included; none after END when `last`). */
export function expectedBlock(ip: string, hosts: readonly string[], newline = "\n", last = false): string {
  const lines = [BEGIN, ...hosts.map((host) => `${ip} ${host}`), END];
  return lines.join(newline) + (last ? "" : newline);
}

/** The text with the lines from BEGIN through END (terminators included) cut out. */
export function withoutBlock(text: string): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const begin = lines.findIndex((line) => line.trim() === BEGIN);
  if (begin === -1) return text;
  const end = lines.findIndex((line, index) => index > begin && line.trim() === END);
  assert.notEqual(end, -1, "BEGIN without END in an edited file");
  return [...lines.slice(0, begin), ...lines.slice(end + 1)].join("");
}

/** A hosts file holding `text` in a temporary directory of its own, removed on dispose. */
export async function tempHostsFile(text: string): Promise<{ dir: string; path: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-hosts-" });
  const path = `${dir}/hosts`;
  await Deno.writeTextFile(path, text);
  return { dir, path, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** Asserts an edit changed the text and returns the new text. */
export function changed(edit: HostsEdit): string {
  assert.equal(edit.kind, "changed", edit.kind === "refused" ? edit.message : "expected a change");
  return edit.kind === "changed" ? edit.text : "";
}
