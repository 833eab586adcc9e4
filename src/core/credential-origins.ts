import { hostRefusal, isLoopbackHost } from './outbound-url.js';
import { AdcpWireError } from './wire-error.js';

/**
 * The origins the caller's headers may be sent to: the origin of the URL the caller gave, plus
 * the ones it lists. Throws `TypeError` for an entry that is not an http(s) origin or URL.
 */
export function credentialOriginsOf(url: string, extra: readonly string[] = []): ReadonlySet<string> {
  const origins = new Set([new URL(url).origin]);
  for (const entry of extra) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(entry);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
      throw new TypeError(
        `credentialOrigins: ${JSON.stringify(entry)} is not an http(s) origin (like https://api.seller.example)`,
      );
    }
    origins.add(parsed.origin);
  }
  return origins;
}

/**
 * Refuses to send the caller's headers (credentials) to `target` when its origin is not one the
 * caller allowed: an agent card may list interface URLs anywhere (another host, the cloud
 * metadata address), and a card is seller-controlled input. Without headers, any origin is used.
 */
export function checkCredentialOrigin(
  target: string,
  headers: Readonly<Record<string, string>>,
  allowed: ReadonlySet<string>,
  tool: string | undefined,
): void {
  if (Object.keys(headers).length === 0) return;
  const origin = new URL(target).origin;
  if (allowed.has(origin)) return;
  throw new AdcpWireError(
    'unsafe_url',
    `${tool ?? 'A2A request'}: credentials not sent to ${origin}, where the agent card puts its interface: ` +
      `they go only to ${[...allowed].join(', ')}. If it is the same agent, add it to credentialOrigins`,
    { url: target, ...(tool === undefined ? {} : { tool }) },
  );
}

/**
 * Refuses a request to `target` (an A2A interface URL an agent card gave: seller-controlled) on
 * an address the caller never chose, whether or not it carries credentials: `localhost` or a
 * special-use IP literal (private, loopback, link-local, cloud metadata...) on an origin that is
 * neither the agent URL's nor one the caller listed. An agent URL on loopback may point at other
 * loopback origins (local development); `allowPrivate` (the caller's explicit option) lifts the
 * rule. Host names are not resolved here: the rule stops literal addresses (decision 0143).
 */
export function checkTargetAddress(
  target: string,
  agentUrl: string,
  allowed: ReadonlySet<string>,
  options: { allowPrivate?: boolean; tool?: string | undefined },
): void {
  if (options.allowPrivate === true) return;
  const url = new URL(target);
  if (allowed.has(url.origin)) return;
  const reach = isLoopbackHost(new URL(agentUrl).hostname) ? 'loopback' : 'public';
  const refused = hostRefusal(url.hostname, reach);
  if (refused === undefined) return;
  const tool = options.tool;
  throw new AdcpWireError(
    'unsafe_url',
    `${tool ?? 'A2A request'}: not sent to ${url.origin}, where the agent card puts its interface: ${refused}, ` +
      `not the agent's own origin. If it is the same agent, add it to credentialOrigins (adcp: ` +
      `--credential-origin), or set allowPrivateCardTargets for a local setup`,
    { url: target, ...(tool === undefined ? {} : { tool }) },
  );
}
