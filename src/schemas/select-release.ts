import { AdcpSchemaError } from './schema-error.js';
import { findReleases, type ReleaseLocation } from './schema-dirs.js';
import { compareBundleVersions, parseBundleVersion, parseWireVersion } from './release.js';
import { PINNED_SHA256 } from './sync/pinned-sha256.js';

import { DEFAULT_RELEASE, OPT_IN_RELEASES, SUPPORTED_RELEASES } from './supported-releases.js';

export { DEFAULT_RELEASE, OPT_IN_RELEASES, SUPPORTED_RELEASES };

function isSupported(version: string): boolean {
  const v = parseBundleVersion(version);
  if (v === undefined) return false;
  const wire = `${v.major}.${v.minor}${v.prerelease === undefined ? '' : `-${v.prerelease}`}`;
  return (
    (SUPPORTED_RELEASES as readonly string[]).includes(wire) || (OPT_IN_RELEASES as readonly string[]).includes(wire)
  );
}

/**
 * The exact version `adcp schemas sync --version` should fetch for `spec` (it takes only exact
 * versions): `spec` itself when it is an exact version this library speaks, else the newest
 * pinned release that `selectRelease(spec)` would then pick; `undefined` when none would do.
 */
function syncVersionFor(spec: string): string | undefined {
  if (parseBundleVersion(spec) !== undefined) return isSupported(spec) ? spec : undefined;
  const wire = parseWireVersion(spec);
  const major = /^\d{1,4}$/.test(spec) ? Number(spec) : undefined;
  return Object.keys(PINNED_SHA256)
    .filter((version) => {
      const v = parseBundleVersion(version);
      if (v === undefined || !isSupported(version)) return false;
      if (wire !== undefined)
        return v.major === wire.major && v.minor === wire.minor && v.prerelease === wire.prerelease;
      return v.major === major && v.prerelease === undefined;
    })
    .sort(compareBundleVersions)
    .at(-1);
}

/**
 * Picks a release on disk by exact version (`3.1.19`), release (`3.1`: newest `3.1.x`;
 * `3.2-beta.5`: that pre-release), or major (`3`: newest stable). Pre-releases are only chosen
 * when named. Throws `AdcpSchemaError` (`unknown_version`, `unsupported_version`) otherwise.
 */
export function selectRelease(
  spec: string = DEFAULT_RELEASE,
  releases: ReleaseLocation[] = findReleases(),
): ReleaseLocation {
  if (typeof spec !== 'string' || spec.length > 64) {
    throw new AdcpSchemaError('unknown_version', 'AdCP version must be a string such as "3.1", "3.1.19" or "3"');
  }
  const shown = JSON.stringify(spec);
  const onDisk = releases.map((r) => r.version).join(', ') || 'none';
  let candidates: ReleaseLocation[];
  const exact = parseBundleVersion(spec);
  const wire = parseWireVersion(spec);
  if (exact !== undefined) {
    candidates = releases.filter((r) => r.version === spec);
  } else if (wire !== undefined) {
    candidates = releases.filter((r) => {
      const v = parseBundleVersion(r.version);
      return v !== undefined && v.major === wire.major && v.minor === wire.minor && v.prerelease === wire.prerelease;
    });
  } else if (/^\d{1,4}$/.test(spec)) {
    candidates = releases.filter((r) => {
      const v = parseBundleVersion(r.version);
      return v !== undefined && v.major === Number(spec) && v.prerelease === undefined && isSupported(r.version);
    });
  } else {
    throw new AdcpSchemaError(
      'unknown_version',
      `AdCP version ${shown.slice(0, 70)} is not a version: use an exact version ("3.1.19"), a release ("3.1") or a major ("3")`,
    );
  }
  const newest = candidates.sort((a, b) => compareBundleVersions(b.version, a.version))[0];
  if (newest === undefined) {
    const sync = syncVersionFor(spec);
    const fix =
      sync === undefined
        ? `it is not a release this library speaks (${SUPPORTED_RELEASES.join(', ')}; opt-in: ${OPT_IN_RELEASES.join(', ')})`
        : `set ADCP_SCHEMAS_DIR or run "adcp schemas sync --version ${sync}"`;
    throw new AdcpSchemaError('unknown_version', `No AdCP schemas for ${shown} (found: ${onDisk}); ${fix}`);
  }
  if (!isSupported(newest.version)) {
    throw new AdcpSchemaError(
      'unsupported_version',
      `AdCP ${newest.version} is not supported (supported: ${SUPPORTED_RELEASES.join(', ')}; opt-in: ${OPT_IN_RELEASES.join(', ')})`,
    );
  }
  return newest;
}
