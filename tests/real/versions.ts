/**
 * The real components the real-component suite builds and runs, at one pinned version each: the
 * one file that says which versions are proven. Each Go component is built from a small module of
 * ours under `tests/real/build/<name>/` whose `go.mod` requires exactly the version named here (a
 * unit test holds the two equal), with `go.sum` so the Go module proxy's bytes are checked.
 *
 * Choices a reader could not guess:
 * - kube-apiserver 1.35: the minor of the kubectl and Helm the tests already use. `k8s.io/kubernetes`
 *   replaces its staging modules with folders of its own tree, which a dependent module cannot
 *   see, so the build module pins every `k8s.io/<staging>` module to the matching `v0.35.x`.
 * - external-dns 0.21: 0.23 needs Go 1.27 (newer than the machines' Go 1.26), and 0.22 needs two
 *   module versions the Go module proxy does not serve. 0.21 builds once an old, unused module
 *   in its graph (`vbom.ml/util`, required by a dependency of a dependency, never compiled) is
 *   replaced by an empty stand-in: the proxy does not serve it either.
 * - BIND 9 is Debian's (the authoritative server external-dns's rfc2136 provider updates), so its
 *   version is whatever the machine's Debian release ships; the suite reports it.
 *
 * Pure: constants only.
 *
 * @module
 */

/** A Go component: where its build module is and the Go package that is its `main`. */
export interface GoComponent {
  /** The executable's name in the cache and in reports. */
  readonly name: string;
  /** The Go module whose version is pinned. */
  readonly module: string;
  /** The pinned version of {@linkcode module}. */
  readonly version: string;
  /** The `main` package to build. */
  readonly mainPackage: string;
  /** The build module's folder, relative to `tests/real/build/`. */
  readonly buildModule: string;
}

/** Kubernetes' release: kube-apiserver, and the staging modules pinned to `v0.<minor>.<patch>`. */
export const KUBERNETES_VERSION = "v1.35.4";

/** Every Go component, in build order (quickest first, so a broken toolchain shows early). */
export const GO_COMPONENTS = [
  {
    name: "etcd",
    module: "go.etcd.io/etcd/server/v3",
    version: "v3.6.17",
    mainPackage: "go.etcd.io/etcd/server/v3",
    buildModule: "etcd",
  },
  {
    name: "coredns",
    module: "github.com/coredns/coredns",
    version: "v1.14.7",
    mainPackage: "github.com/coredns/coredns",
    buildModule: "coredns",
  },
  {
    name: "kube-apiserver",
    module: "k8s.io/kubernetes",
    version: KUBERNETES_VERSION,
    mainPackage: "k8s.io/kubernetes/cmd/kube-apiserver",
    buildModule: "kube-apiserver",
  },
  {
    name: "external-dns",
    module: "sigs.k8s.io/external-dns",
    version: "v0.21.0",
    mainPackage: "sigs.k8s.io/external-dns",
    buildModule: "external-dns",
  },
] as const satisfies readonly GoComponent[];

/** A component's name. */
export type ComponentName = (typeof GO_COMPONENTS)[number]["name"];

/** The staging modules' version matching {@linkcode KUBERNETES_VERSION}: `v1.35.4` → `v0.35.4`. */
export function stagingVersion(kubernetes: string = KUBERNETES_VERSION): string {
  return kubernetes.replace(/^v1\./, "v0.");
}

/** The Debian packages the suite runs as they are (BIND 9 as the authoritative DNS server). */
export const DEBIAN_PACKAGES = ["bind9", "bind9-utils", "bind9-dnsutils"] as const;
