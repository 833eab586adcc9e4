import type { JsonObject } from '../core/types.js';
import { isPlainObject } from '../core/plain-object.js';
import { compareWireVersions, parseWireVersion } from '../schemas/release.js';
import { SUPPORTED_RELEASES } from '../schemas/supported-releases.js';

/** The agent speaks no release this client can use (versioning.md, "VERSION_UNSUPPORTED"). */
export class AdcpVersionError extends Error {
  override readonly name = 'AdcpVersionError';
  readonly code = 'version_unsupported';
  /** What the client could speak and what the agent advertised. */
  readonly ours: string[];
  readonly theirs: string[];

  constructor(url: string, ours: string[], theirs: string[]) {
    super(
      `No AdCP release in common with ${url}: it speaks ${theirs.join(', ') || 'none it advertises'}, this client ${ours.join(', ')}; pin another with adcpVersion`,
    );
    this.ours = ours;
    this.theirs = theirs;
  }
}

/** Releases a client pinned at `pin` may use: the pin itself and the supported releases below it in its major. */
export function releasesUpTo(pin: string): string[] {
  const wanted = parseWireVersion(pin);
  if (wanted === undefined) return [];
  const below = SUPPORTED_RELEASES.filter(
    (r) => parseWireVersion(r)!.major === wanted.major && compareWireVersions(r, pin) <= 0,
  );
  return [...new Set([...below, pin])].sort(compareWireVersions);
}

/**
 * The release to speak with an agent, from its `get_adcp_capabilities` body: the highest release
 * both sides list (`adcp.supported_versions`); an agent that lists only `adcp.major_versions`
 * (3.0) gets the highest of ours in that major; an agent that says nothing gets the pin.
 * Returns the agent's list when nothing is in common.
 */
export function chooseRelease(
  pin: string,
  capabilities: JsonObject | undefined,
): { release?: string; theirs: string[] } {
  const ours = releasesUpTo(pin);
  const adcp = isPlainObject(capabilities?.['adcp']) ? capabilities['adcp'] : undefined;
  const listed = adcp?.['supported_versions'];
  if (Array.isArray(listed)) {
    const theirs = listed
      .filter((v): v is string => typeof v === 'string' && parseWireVersion(v) !== undefined)
      .slice(0, 50);
    const common = ours.filter((v) => theirs.includes(v)).sort(compareWireVersions);
    const release = common[common.length - 1];
    return release === undefined ? { theirs } : { release, theirs };
  }
  const majors = adcp?.['major_versions'];
  if (Array.isArray(majors)) {
    const theirs = majors.filter((m): m is number => Number.isInteger(m)).map((m) => `${m}.x`);
    const inMajor = ours.filter((v) => majors.includes(parseWireVersion(v)!.major));
    // A 3.0 seller that predates supported_versions: the lowest of ours in its major is safest.
    const release = inMajor[0];
    return release === undefined ? { theirs } : { release, theirs };
  }
  return { release: pin, theirs: [] };
}
