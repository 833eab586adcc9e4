// Request-signing benchmarks: (1) the event-loop time one verifyRequestSignature takes beside a
// bare Ed25519 crypto.verify, measured in the same run; (2) a signed AdcpClient call against an
// unsigned one, end to end over MCP on loopback (client and verifying server in this process),
// beside a "floor" call: an unsigned call that also does the least any signed call must add (one
// Ed25519 sign and one verify of a signature-base-sized buffer, and three headers of the signed
// call's sizes on the wire), with none of the signing logic.
import { performance } from 'node:perf_hooks';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { AdcpClient } from '../src/client/index.js';
import { createAdcpServer } from '../src/server/create-adcp-server.js';
import { signRequest } from '../src/signing/sign-request.js';
import { verifyRequestSignature } from '../src/signing/verify-request-signature.js';
import { MemoryReplayStore } from '../src/signing/replay-store.js';
import type { Jwk } from '../src/signing/jwks.js';

const VERIFICATIONS = 5000;
const CALLS = 500;
const WARMUP = 100;
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'bench-2026',
  alg: 'EdDSA',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const signing = { keyid: 'bench-2026', privateKey, alg: 'ed25519' as const };
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? Number.NaN;

// (1) Event-loop time per verification. The library runs crypto.verify on the thread pool, so the
// loop's active time per request is everything else the checklist does.
const url = 'https://seller.example/mcp';
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_products', arguments: { buying_mode: 'brief', brief: 'ctv' } },
});
const requests = Array.from({ length: VERIFICATIONS + WARMUP }, () => ({
  method: 'POST',
  url,
  body,
  headers: { 'content-type': 'application/json', ...signRequest({ method: 'POST', url, body }, signing) },
}));
const jwks = { keys: [jwk] };
const replay = new MemoryReplayStore();
for (const request of requests.slice(0, WARMUP))
  await verifyRequestSignature(request, { jwks, replay, coverContentDigest: 'required' });
const elu0 = performance.eventLoopUtilization();
const t0 = performance.now();
for (const request of requests.slice(WARMUP)) {
  const result = await verifyRequestSignature(request, { jwks, replay, coverContentDigest: 'required' });
  if (!result.ok) throw new Error(`bench: verification failed (${result.code})`);
}
const wallPer = ((performance.now() - t0) * 1000) / VERIFICATIONS;
const elu = performance.eventLoopUtilization(elu0);
const loopPer = (elu.active * 1000) / VERIFICATIONS;
const data = Buffer.from('x'.repeat(400));
const signature = sign(null, data, privateKey);
for (let i = 0; i < WARMUP; i++) verify(null, data, publicKey, signature);
const c0 = performance.now();
for (let i = 0; i < VERIFICATIONS; i++) verify(null, data, publicKey, signature);
const cryptoPer = ((performance.now() - c0) * 1000) / VERIFICATIONS;

// (2) Signed vs unsigned call, end to end, alternating blocks of 50 so drift hits both alike.
const server = createAdcpServer({
  tools: [{ name: 'get_products', description: 'x', handler: () => ({ products: [{ product_id: 'p1' }] }) }],
  requestSigning: { jwks, coverContentDigest: 'required' },
});
const listening = await server.listen();
const plain = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp', retry: false, validate: 'off' });
const signed = new AdcpClient({
  url: listening.mcpUrl,
  protocol: 'mcp',
  retry: false,
  signing,
  validate: 'off',
} as never);
const sample = signRequest({ method: 'POST', url: listening.mcpUrl, body }, signing);
const floorData = Buffer.alloc(512, 'x');
const floorSignature = sign(null, floorData, privateKey);
const pad = {
  'x-floor-a': sample['signature-input'] ?? '',
  'x-floor-b': sample.signature ?? '',
  'x-floor-c': sample['content-digest'] ?? '',
};
const floorFetch: typeof fetch = (input, init) => {
  if (init?.method === 'POST') {
    sign(null, Buffer.from(floorData), privateKey);
    if (!verify(null, floorData, publicKey, floorSignature)) throw new Error('bench: floor verify failed');
  }
  return globalThis.fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...pad } });
};
const floor = new AdcpClient({
  url: listening.mcpUrl,
  protocol: 'mcp',
  retry: false,
  validate: 'off',
  fetch: floorFetch,
});
const args = { buying_mode: 'brief', brief: 'ctv' } as const;
const times = { plain: [] as number[], signed: [] as number[], floor: [] as number[] };
for (let i = 0; i < WARMUP; i++) {
  await plain.call('get_products', args);
  await signed.call('get_products', args);
  await floor.call('get_products', args);
}
for (let block = 0; block < CALLS / 50; block++) {
  for (const [name, client] of [
    ['plain', plain],
    ['signed', signed],
    ['floor', floor],
  ] as const) {
    for (let i = 0; i < 50; i++) {
      const s = performance.now();
      const result = await client.call('get_products', args);
      if (result.status !== 'completed') throw new Error(`bench: ${name} call ${result.status}`);
      times[name].push(performance.now() - s);
    }
  }
}
await plain.close();
await signed.close();
await floor.close();
await listening.close();
const ratio = median(times.signed) / median(times.plain);
const floorRatio = median(times.floor) / median(times.plain);

console.log(`### Request signing (RFC 9421, Ed25519)

${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)}; ${VERIFICATIONS} verifications, ${CALLS} calls of each kind.

| measure | value | target | met |
|---|---|---|---|
| bare \`crypto.verify\` (Ed25519, synchronous), per call | ${cryptoPer.toFixed(1)} µs | baseline | |
| \`verifyRequestSignature\`: event-loop active time per request (crypto on the thread pool) | ${loopPer.toFixed(1)} µs = ${(loopPer / cryptoPer).toFixed(2)}x the bare check | ≤ 100 µs beyond the Ed25519 check | ${loopPer <= 100 ? 'yes' : 'no'} |
| \`verifyRequestSignature\`: wall time per request, one at a time | ${wallPer.toFixed(1)} µs | | |
| signed AdcpClient call vs unsigned, MCP on loopback, median | ${median(times.signed).toFixed(3)} ms vs ${median(times.plain).toFixed(3)} ms = ${ratio.toFixed(3)}x | ≤ 1.10x | ${ratio <= 1.1 ? 'yes' : 'no'} |
| floor: unsigned call + one Ed25519 sign + one verify + the three headers' bytes, no signing logic | ${median(times.floor).toFixed(3)} ms = ${floorRatio.toFixed(3)}x the unsigned call | (what no signed call can go under) | |
`);
