/**
 * The API server's version (`/version`), for checks that depend on what the server supports.
 *
 * Effects: one GET through the client; missing fields read as empty, never throw.
 *
 * @module
 */

import type { CallOptions } from "./client_options.ts";
import type { KubeClient } from "./client.ts";

/** `/version`'s fields we read. */
export interface ServerVersion {
  readonly gitVersion: string;
  readonly major: number;
  /** `"30+"` on some distributions reads as 30. */
  readonly minor: number;
}

/** Reads `/version`. */
export async function serverVersion(
  api: Pick<KubeClient, "getJson">,
  options: CallOptions = {},
): Promise<ServerVersion> {
  const raw = await api.getJson("/version", options);
  const record = typeof raw === "object" && raw !== null ? raw as Record<string, unknown> : {};
  const text = (key: string) => (typeof record[key] === "string" ? record[key] as string : "");
  return {
    gitVersion: text("gitVersion"),
    major: Number.parseInt(text("major"), 10),
    minor: Number.parseInt(text("minor"), 10),
  };
}
