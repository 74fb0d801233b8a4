/**
 * kuberture's uniqueness rules across outputs: names, serviceNames and hostnames each belong to one
 * output (two writers of one Service or one name would undo each other).
 *
 * Pure: records problems on the document it is given.
 *
 * @module
 */

import type { ConfigDocument, ConfigEntry, ConfigListItem } from "./config_document.ts";

/** What the checks need of one output: its place and its names, with where each is written. */
export interface OutputPlaces {
  /** The output's index in `outputs`. */
  readonly index: number;
  readonly name: string | undefined;
  readonly nameEntry: ConfigEntry | undefined;
  readonly serviceName: string | undefined;
  readonly serviceNameEntry: ConfigEntry | undefined;
  /** The output's valid hostnames. */
  readonly hostnames: readonly ConfigListItem[];
}

/**
 * Records a problem for each name, serviceName or hostname an earlier output already uses
 * (hostnames without case and trailing dot), and for a hostname listed twice in one output.
 */
export function checkOutputsUnique(doc: ConfigDocument, outputs: readonly OutputPlaces[]): void {
  const firstWith = (value: (output: OutputPlaces) => string | undefined) => {
    const seen = new Map<string, OutputPlaces>();
    return (output: OutputPlaces): OutputPlaces | undefined => {
      const key = value(output);
      if (key === undefined) return undefined;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, output);
      return first;
    };
  };
  const sameName = firstWith((output) => output.name);
  const sameService = firstWith((output) => output.serviceName);
  const hosts = new Map<string, { output: OutputPlaces; item: ConfigListItem }>();
  for (const output of outputs) {
    const named = sameName(output);
    if (named !== undefined) {
      const name = JSON.stringify(output.name);
      const message = `outputs[${output.index}] and outputs[${named.index}] are both named ${name}; output ` +
        "names must be unique";
      doc.problem(output.nameEntry!.value, output.nameEntry!.keyPath, message);
    }
    const writer = sameService(output);
    if (writer !== undefined) {
      const service = JSON.stringify(output.serviceName);
      const message = `${who(output)} and ${who(writer)} both write ${service}; each output needs its own ` +
        "serviceName";
      doc.problem(output.serviceNameEntry!.value, output.serviceNameEntry!.keyPath, message);
    }
    for (const item of output.hostnames) {
      const key = item.text.toLowerCase().replace(/\.$/, "");
      const first = hosts.get(key);
      if (first === undefined) {
        hosts.set(key, { output, item });
        continue;
      }
      const host = JSON.stringify(item.text);
      if (first.output === output) {
        const message =
          `${host} is listed twice in ${who(output)} (also at ${first.item.keyPath}); give each ` +
          "hostname once";
        doc.problem(item.node, item.keyPath, message);
        continue;
      }
      const same = first.item.text === item.text
        ? ""
        : ` (the same name as ${JSON.stringify(first.item.text)})`;
      const message = `${who(output)} and ${who(first.output)} (at ${first.item.keyPath}) both publish ` +
        `${host}${same}; a hostname belongs to one output only`;
      doc.problem(item.node, item.keyPath, message);
    }
  }
}

/** An output as messages name it: `output "public" (outputs[0])`, or `outputs[0]` without a name. */
function who(output: OutputPlaces): string {
  return output.name === undefined
    ? `outputs[${output.index}]`
    : `output ${JSON.stringify(output.name)} (outputs[${output.index}])`;
}
