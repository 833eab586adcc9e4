import type { Counter, Histogram, Meter, MeterProvider } from '@opentelemetry/api';
import { otelApi } from './otel.js';
import { ADCP_WIRE_PACKAGE } from '../transport/package-version.js';

type Labels = Record<string, string | number | boolean>;

/**
 * The instruments this package records; names are documented in docs/telemetry.md. Calls and
 * invocations are counted by their duration histograms (a histogram's count), as the HTTP and MCP
 * semantic conventions do: no separate counter is recorded beside them.
 */
export interface Instruments {
  clientCallDuration: Histogram<Labels>;
  clientRetries: Counter<Labels>;
  clientPolls: Counter<Labels>;
  timeToFinal: Histogram<Labels>;
  serverInvocationDuration: Histogram<Labels>;
  webhookDeliveries: Counter<Labels>;
  emitterAttempts: Counter<Labels>;
  emitterRetries: Counter<Labels>;
  emitterDeadLetters: Counter<Labels>;
  storeDuration: Histogram<Labels>;
}

let provider: MeterProvider | undefined;
let instruments: Instruments | undefined;

/**
 * The instruments on the registered meter provider, created once per provider. `undefined` when
 * no meter provider is registered (the API's no-op meter) or `@opentelemetry/api` is not
 * installed, so callers skip building labels for nothing.
 */
export function meters(): Instruments | undefined {
  const api = otelApi();
  if (api === undefined) return undefined;
  const current = api.metrics.getMeterProvider();
  if (current !== provider) {
    provider = current;
    const meter = current.getMeter(ADCP_WIRE_PACKAGE.name, ADCP_WIRE_PACKAGE.version);
    instruments = meter === api.createNoopMeter() ? undefined : create(meter);
  }
  return instruments;
}

function create(meter: Meter): Instruments {
  const seconds = (name: string, description: string) => meter.createHistogram(name, { description, unit: 's' });
  const count = (name: string, description: string, unit: string) => meter.createCounter(name, { description, unit });
  return {
    clientCallDuration: seconds(
      'adcp.client.call.duration',
      'AdcpClient.call duration, retries included, by tool and outcome (its count is the calls)',
    ),
    clientRetries: count('adcp.client.retries', 'Attempts repeated after a transient failure', '{retry}'),
    clientPolls: count('adcp.client.polls', 'Task-status polls made while waiting', '{poll}'),
    timeToFinal: seconds('adcp.client.time_to_final', 'From waitFor to the final (or settled) status'),
    serverInvocationDuration: seconds(
      'adcp.server.invocation.duration',
      'Tool invocation duration on the server, by tool and outcome (its count is the invocations)',
    ),
    webhookDeliveries: count(
      'adcp.webhook.deliveries',
      'Webhook deliveries received, by outcome and reason',
      '{delivery}',
    ),
    emitterAttempts: count('adcp.webhook.emitter.attempts', 'Webhook delivery attempts sent', '{attempt}'),
    emitterRetries: count('adcp.webhook.emitter.retries', 'Webhook delivery attempts repeated', '{retry}'),
    emitterDeadLetters: count(
      'adcp.webhook.emitter.dead_letters',
      'Webhook deliveries given up, by reason',
      '{delivery}',
    ),
    storeDuration: seconds('adcp.store.duration', 'Store operation latency, by store and operation'),
  };
}
