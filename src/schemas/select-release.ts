import { AdcpSchemaError } from './schema-error.js';
import { findReleases, type ReleaseLocation } from './schema-dirs.js';
import { compareBundleVersions, parseBundleVersion, parseWireVersion } from './release.js';

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
    throw new AdcpSchemaError(
      'unknown_version',
      `No AdCP schemas for ${shown} (found: ${onDisk}); set ADCP_SCHEMAS_DIR or run "adcp schemas sync --version <v>"`,
    );
  }
  if (!isSupported(newest.version)) {
    throw new AdcpSchemaError(
      'unsupported_version',
      `AdCP ${newest.version} is not supported (supported: ${SUPPORTED_RELEASES.join(', ')}; opt-in: ${OPT_IN_RELEASES.join(', ')})`,
    );
  }
  return newest;
}
