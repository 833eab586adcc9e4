/**
 * The releases this library speaks, on their own so that the client can name them without
 * loading the schema search path (`select-release.ts` and what it reads from disk).
 */

/** Releases this library speaks: stable 3.0 and 3.1; the 3.2 beta only when named. */
export const SUPPORTED_RELEASES = ['3.0', '3.1'] as const;
/** Pre-releases spoken when asked for by name (`3.2.0-beta.5` or `3.2-beta.5`). */
export const OPT_IN_RELEASES = ['3.2-beta.5'] as const;
/** The release used when none is named. */
export const DEFAULT_RELEASE = '3.1';
