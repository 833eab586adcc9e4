// Strict JSON for webhook bodies: parseJsonStrict (UTF-8 byte cap + duplicate-key scan) against a
// bare JSON.parse of the same text, same run, alternating in blocks. Webhook receivers run it on
// every delivery; bodies are capped at 1 MiB (webhooks.md "Security requirements").
import { performance } from 'node:perf_hooks';
import { parseJsonStrict } from '../src/core/json.js';

const ROUNDS = 40;
const BLOCK = 5;

function deliveryReport(packages: number): string {
  const byPackage = Array.from({ length: packages }, (_, i) => ({
    package_id: `pkg_${i}`,
    totals: { impressions: 1000 + i, spend: 45.5 + i, clicks: i % 17, video_completions: i % 9 },
    by_creative: [{ creative_id: `cr_${i}_a`, impressions: 500, name: `Créative ${i} – été` }],
  }));
  return JSON.stringify({
    idempotency_key: '6f1c2a8e-9b1d-4c3e-8f2a-0d9e7b6a5c41',
    operation_id: 'delivery_report_67_2026_04',
    task_id: 'delivery_report_67_2026_04_000031',
    task_type: 'media_buy_delivery',
    status: 'completed',
    timestamp: '2026-05-26T09:00:44.582Z',
    result: {
      notification_type: 'scheduled',
      currency: 'USD',
      media_buy_deliveries: [{ media_buy_id: 'mb_001', by_package: byPackage }],
    },
  });
}

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function measure(text: string, iterations: number): { strict: number; bare: number } {
  const run = (fn: () => unknown) => {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    return (performance.now() - start) / iterations;
  };
  const strict = () => {
    const r = parseJsonStrict(text, { maxBytes: 1024 * 1024 });
    if (!r.ok) throw new Error(r.reason);
  };
  const bare = () => JSON.parse(text) as unknown;
  for (let i = 0; i < 3; i++) {
    strict();
    bare();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let done = 0; done < ROUNDS; done += BLOCK) {
    for (let i = 0; i < BLOCK; i++) a.push(run(strict));
    for (let i = 0; i < BLOCK; i++) b.push(run(bare));
  }
  return { strict: median(a), bare: median(b) };
}

const cases = [
  { name: 'small webhook', text: deliveryReport(2), iterations: 2000 },
  { name: 'delivery report', text: deliveryReport(300), iterations: 20 },
  { name: 'near-cap delivery report', text: deliveryReport(4000), iterations: 2 },
];
console.log('## Strict JSON (parseJsonStrict vs JSON.parse)\n');
console.log('| body | bytes | JSON.parse | parseJsonStrict | ratio |');
console.log('|---|---:|---:|---:|---:|');
for (const c of cases) {
  const bytes = Buffer.byteLength(c.text);
  if (bytes > 1024 * 1024) throw new Error(`${c.name} is over the 1 MiB cap: ${bytes}`);
  const { strict, bare } = measure(c.text, c.iterations);
  const us = (ms: number) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`);
  console.log(`| ${c.name} | ${bytes} | ${us(bare)} | ${us(strict)} | ${(strict / bare).toFixed(2)}x |`);
}
console.log('\nThe ratio is the price of duplicate-key detection (one extra pass over the text) and the byte cap.\n');
