import type { AdcpError, JsonObject } from '../../core/types.js';
import { compareWireVersions, parseWireVersion } from '../../schemas/release.js';

export type Negotiated = { ok: true; release: string } | { ok: false; error: AdcpError };

/**
 * The server's side of release-precision negotiation (versioning.md, "Bidirectional
 * negotiation", step 3): exact match; a pre-release pin only exactly; otherwise the highest
 * supported stable release at or below the pin in the same major; `adcp_major_version` alone
 * selects the highest stable release of that major; nothing sent selects `defaultRelease`.
 * Anything else is `VERSION_UNSUPPORTED` with the supported list in `details`.
 */
export function negotiateVersion(args: JsonObject, supported: readonly string[], defaultRelease: string): Negotiated {
  const pin = args['adcp_version'];
  const major = args['adcp_major_version'];
  if (pin !== undefined && parseWireVersion(pin) === undefined) {
    return {
      ok: false,
      error: {
        code: 'INVALID_REQUEST',
        message: 'adcp_version must be release precision, such as "3.1".',
        recovery: 'correctable',
        field: 'adcp_version',
      },
    };
  }
  if (major !== undefined && (typeof major !== 'number' || !Number.isInteger(major) || major < 1)) {
    return {
      ok: false,
      error: {
        code: 'INVALID_REQUEST',
        message: 'adcp_major_version must be a positive integer.',
        recovery: 'correctable',
        field: 'adcp_major_version',
      },
    };
  }
  const stable = supported.filter((v) => parseWireVersion(v)?.prerelease === undefined);
  if (typeof pin === 'string') {
    const wanted = parseWireVersion(pin)!;
    if (typeof major === 'number' && major !== wanted.major) return unsupported(args, supported);
    if (supported.includes(pin)) return { ok: true, release: pin };
    if (wanted.prerelease !== undefined) return unsupported(args, supported);
    const below = stable
      .filter((v) => parseWireVersion(v)!.major === wanted.major && compareWireVersions(v, pin) <= 0)
      .sort(compareWireVersions);
    const served = below[below.length - 1];
    return served === undefined ? unsupported(args, supported) : { ok: true, release: served };
  }
  if (typeof major === 'number') {
    const inMajor = stable.filter((v) => parseWireVersion(v)!.major === major).sort(compareWireVersions);
    const served = inMajor[inMajor.length - 1];
    return served === undefined ? unsupported(args, supported) : { ok: true, release: served };
  }
  return { ok: true, release: defaultRelease };
}

function unsupported(args: JsonObject, supported: readonly string[]): Negotiated {
  const asked =
    typeof args['adcp_version'] === 'string' ? args['adcp_version'] : `major ${String(args['adcp_major_version'])}`;
  const majors = [...new Set(supported.map((v) => parseWireVersion(v)!.major))].sort((a, b) => a - b);
  const details: JsonObject = { supported_versions: [...supported], supported_majors: majors };
  if (typeof args['adcp_version'] === 'string') details['adcp_version'] = args['adcp_version'];
  if (typeof args['adcp_major_version'] === 'number') details['adcp_major_version'] = args['adcp_major_version'];
  return {
    ok: false,
    error: {
      code: 'VERSION_UNSUPPORTED',
      message: `AdCP ${asked.slice(0, 40)} is not supported; supported: ${supported.join(', ')}.`,
      recovery: 'correctable',
      details,
    },
  };
}
