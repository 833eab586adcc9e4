/**
 * AdCP release identities (versioning.md, "Version negotiation"): a bundle is keyed by full
 * semver (`3.1.19`, `3.2.0-beta.5`); the wire speaks release precision (`3.1`, `3.2-beta.5`).
 */

/** A parsed bundle version. */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release tag (`beta.5`), absent for a stable release. */
  prerelease?: string;
}

const BUNDLE = /^(\d{1,4})\.(\d{1,4})\.(\d{1,6})(?:-([0-9A-Za-z.-]{1,40}))?$/;
const WIRE = /^(\d{1,4})\.(\d{1,4})(?:-([0-9A-Za-z.-]{1,40}))?$/;

/** Parses a bundle version (`3.1.19`, `3.2.0-beta.5`); `undefined` when it is not one. */
export function parseBundleVersion(value: string): ReleaseVersion | undefined {
  const m = BUNDLE.exec(value);
  if (m === null) return undefined;
  const out: ReleaseVersion = { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
  if (m[4] !== undefined) out.prerelease = m[4];
  return out;
}

/** Parses a release-precision wire version (`3.1`, `3.2-beta.5`); `undefined` when it is not one. */
export function parseWireVersion(value: unknown): Omit<ReleaseVersion, 'patch'> | undefined {
  if (typeof value !== 'string') return undefined;
  const m = WIRE.exec(value);
  if (m === null) return undefined;
  const out: Omit<ReleaseVersion, 'patch'> = { major: Number(m[1]), minor: Number(m[2]) };
  if (m[3] !== undefined) out.prerelease = m[3];
  return out;
}

/** The wire value of a bundle version: `3.1.19` -> `3.1`, `3.2.0-beta.5` -> `3.2-beta.5`. */
export function toWireVersion(bundleVersion: string): string {
  const v = parseBundleVersion(bundleVersion);
  if (v === undefined) throw new RangeError(`not an AdCP bundle version: ${JSON.stringify(bundleVersion)}`);
  return `${v.major}.${v.minor}${v.prerelease === undefined ? '' : `-${v.prerelease}`}`;
}

/** Orders bundle versions (semver precedence; a pre-release sorts before its release). */
export function compareBundleVersions(a: string, b: string): number {
  const x = parseBundleVersion(a);
  const y = parseBundleVersion(b);
  if (x === undefined || y === undefined) return a < b ? -1 : a > b ? 1 : 0;
  if (x.major !== y.major) return x.major - y.major;
  if (x.minor !== y.minor) return x.minor - y.minor;
  if (x.patch !== y.patch) return x.patch - y.patch;
  if (x.prerelease === y.prerelease) return 0;
  if (x.prerelease === undefined) return 1;
  if (y.prerelease === undefined) return -1;
  return comparePrerelease(x.prerelease, y.prerelease);
}

/** Orders release-precision wire versions the same way (`3.0` < `3.1-beta.1` < `3.1`). */
export function compareWireVersions(a: string, b: string): number {
  const x = parseWireVersion(a);
  const y = parseWireVersion(b);
  if (x === undefined || y === undefined) return a < b ? -1 : a > b ? 1 : 0;
  if (x.major !== y.major) return x.major - y.major;
  if (x.minor !== y.minor) return x.minor - y.minor;
  if (x.prerelease === y.prerelease) return 0;
  if (x.prerelease === undefined) return 1;
  if (y.prerelease === undefined) return -1;
  return comparePrerelease(x.prerelease, y.prerelease);
}

function comparePrerelease(a: string, b: string): number {
  const xs = a.split('.');
  const ys = b.split('.');
  for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
    const p = xs[i];
    const q = ys[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn && Number(p) !== Number(q)) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}
