/**
 * SHA-256 of the official release tarballs, pinned here from their published `.sha256` sidecars:
 * a download must match both the pin and the sidecar beside it. On its own (no imports) so that
 * `selectRelease` can name a release to sync without loading the sync code.
 */
export const PINNED_SHA256: Readonly<Record<string, string>> = {
  '3.0.26': '7e7210b4e12999244a2fcec49f18f4f5e8d5b07be22c6e4fc17407adb1714d6e',
  '3.1.19': 'bc3ed510f85b10694b255b576a2de9c9c678bc2ec789d91e979ed00412b2f557',
  '3.2.0-beta.5': 'd9495478ff81e1384f509b4d925b0d3fd516631cf161e00355b91ec7ff15e98f',
};
