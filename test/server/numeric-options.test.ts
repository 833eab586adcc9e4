// createAdcpServer refuses a numeric option it cannot honour, before anything starts, with a
// RangeError naming the option. Unchecked, `maxBodyBytes: Number(process.env.UNSET)` (NaN) lifted
// the body cap (`size > NaN` is never true), `sessionIdleMs: 0` ran the idle sweep every
// millisecond, and a timeout past 2^31 - 1 ms fired after 1 ms (Node's timer overflow).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { CreateAdcpServerOptions } from '../../src/server/types.js';
import { testTools } from './fixtures.js';

const base = (): CreateAdcpServerOptions => ({ validateRequests: false, tools: testTools() });

const MS = [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31];
const COUNT = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY];

const cases: { name: string; bad: unknown[]; message: RegExp; set: (v: number) => Partial<CreateAdcpServerOptions> }[] =
  [
    {
      name: 'requestTimeoutMs',
      bad: MS,
      message: /requestTimeoutMs must be a positive number of milliseconds/,
      set: (v) => ({ requestTimeoutMs: v }),
    },
    {
      name: 'keepAliveTimeoutMs',
      bad: MS,
      message: /keepAliveTimeoutMs must be a positive number of milliseconds/,
      set: (v) => ({ keepAliveTimeoutMs: v }),
    },
    {
      name: 'sessionIdleMs',
      bad: MS,
      message: /sessionIdleMs must be a positive number of milliseconds/,
      set: (v) => ({ sessionIdleMs: v }),
    },
    {
      name: 'health.timeoutMs',
      bad: MS,
      message: /health\.timeoutMs must be a positive number of milliseconds/,
      set: (v) => ({ health: { timeoutMs: v } }),
    },
    {
      name: 'taskAfterMs',
      bad: [-1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31],
      message: /taskAfterMs must be a number of milliseconds, 0 or more/,
      set: (v) => ({ taskAfterMs: v }),
    },
    {
      name: 'maxBodyBytes',
      bad: COUNT,
      message: /maxBodyBytes must be a positive integer/,
      set: (v) => ({ maxBodyBytes: v }),
    },
    {
      name: 'maxJsonDepth',
      bad: COUNT,
      message: /maxJsonDepth must be a positive integer/,
      set: (v) => ({ maxJsonDepth: v }),
    },
    {
      name: 'maxSessions',
      bad: COUNT,
      message: /maxSessions must be a positive integer/,
      set: (v) => ({ maxSessions: v }),
    },
    {
      name: 'maxSessionsPerPrincipal',
      bad: COUNT,
      message: /maxSessionsPerPrincipal must be a positive integer/,
      set: (v) => ({ maxSessionsPerPrincipal: v }),
    },
  ];

describe('createAdcpServer numeric options', () => {
  for (const c of cases) {
    it(`refuses a ${c.name} it cannot honour`, () => {
      for (const value of c.bad) {
        assert.throws(
          () => createAdcpServer({ ...base(), ...c.set(value as number) }),
          (error: unknown) => error instanceof RangeError && c.message.test(error.message),
          `${c.name}: ${String(value)}`,
        );
      }
    });
  }

  it('takes every option at a sound value, and serves', async () => {
    const adcp = createAdcpServer({
      ...base(),
      requestTimeoutMs: 2 ** 31 - 1 - 5_000,
      keepAliveTimeoutMs: 1.5,
      sessionIdleMs: 1,
      health: { timeoutMs: 2 ** 31 - 1 },
      taskAfterMs: 0,
      maxBodyBytes: 1,
      maxJsonDepth: 1,
      maxSessions: 1,
      maxSessionsPerPrincipal: 1,
    });
    after(() => adcp.close());
    const { url } = await adcp.listen();
    const health = await fetch(`${url}/healthz`);
    await health.text();
    assert.equal(health.status, 200);
    // maxBodyBytes: 1 is honoured, not ignored.
    const big = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await big.text();
    assert.equal(big.status, 413);
  });
});
