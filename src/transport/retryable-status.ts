/**
 * True for an HTTP status worth sending the same request again (with the same
 * `idempotency_key`): 429 and every 5xx. transport-errors.md ("Error Translation in Agent
 * Chains") maps an upstream 429 to `RATE_LIMITED` and any status >= 500 to
 * `SERVICE_UNAVAILABLE`, both `transient`; security.md ("Network retry") and calling-an-agent.md
 * name "5xx" among the retries a buyer makes with the same key. The client's retry ceilings bound
 * the cost of a 5xx that does not go away.
 */
export function isRetryableStatus(status: number | undefined): boolean {
  return status === 429 || (status !== undefined && status >= 500 && status <= 599);
}
