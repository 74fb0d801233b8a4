/**
 * The Corefile sink's words that depend on its target: CoreDNS's Corefile (coredns mode) or
 * node-local-dns's (`--node-local-dns=manage`), so one sink serves both.
 *
 * Pure: data.
 *
 * @module
 */

/** The remedies and names one Corefile sink uses in its messages. */
export interface CorefileSinkWording {
  /** First word of the sink's description: `coredns`. */
  readonly name: string;
  /** What one host becomes in the target, plural: `rewrite rules`. */
  readonly units: string;
  readonly whereFlags: string;
  readonly keyFlag: string;
  /** What to do when another writer keeps reverting the block. */
  readonly revertRemedy: string;
  /** Where the reload plugin goes. */
  readonly reloadWhere: string;
}

/** coredns mode's words. */
export const COREDNS_WORDING: CorefileSinkWording = {
  name: "coredns",
  units: "rewrite rules",
  whereFlags: "--coredns-namespace and --coredns-configmap",
  keyFlag: "--coredns-key",
  revertRemedy: "Switch to coredns-import mode (ouroboros then owns one key of a separate ConfigMap), " +
    "or exclude the Corefile key from the other tool",
  reloadWhere: "the .:53 server block",
};

/** `--node-local-dns=manage`'s words. */
export const NODE_LOCAL_DNS_WORDING: CorefileSinkWording = {
  name: "node-local-dns",
  units: "zones",
  whereFlags: "OUROBOROS_NODE_LOCAL_DNS_NAMESPACE and OUROBOROS_NODE_LOCAL_DNS_CONFIGMAP",
  keyFlag: "OUROBOROS_NODE_LOCAL_DNS_KEY",
  revertRemedy: "Make the tool that owns the node-local-dns ConfigMap leave the ouroboros-node-local-dns " +
    "block alone, or go back to --node-local-dns=warn",
  reloadWhere: "every server block of the node-local-dns Corefile",
};
