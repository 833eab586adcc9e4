import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listEndpoints, selectEndpoint, wireOf } from './select-interface.js';
import { cardCandidates, cardProblem } from './discover-card.js';
import { AdcpWireError } from '../core/wire-error.js';

const CARD_URL = 'https://seller.example/.well-known/agent-card.json';

describe('wireOf', () => {
  it('maps 1.x versions to 1.0 and 0.3.x to 0.3', () => {
    assert.deepEqual(['1.0', '1', '1.0.0', '0.3', '0.3.0', '0.2.5', '2.0', 'v1.0', 1].map(wireOf), [
      '1.0',
      '1.0',
      '1.0',
      '0.3',
      '0.3',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('listEndpoints', () => {
  it('lists 1.0 interfaces before v0.3 ones and reads the v0.3 root url', () => {
    const card = {
      url: 'https://seller.example/v03',
      protocolVersion: '0.3.0',
      supportedInterfaces: [{ url: 'https://seller.example/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    };
    assert.deepEqual(listEndpoints(card, CARD_URL), [
      { wire: '1.0', url: 'https://seller.example/v1' },
      { wire: '0.3', url: 'https://seller.example/v03' },
    ]);
  });

  it('skips non-JSON-RPC bindings, userinfo URLs, non-http schemes and https-to-http downgrades', () => {
    const card = {
      supportedInterfaces: [
        { url: 'https://seller.example/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: 'https://u:p@seller.example/a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'javascript:alert(1)', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'http://seller.example/plain', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://seller.example/ok', protocolBinding: 'jsonrpc', protocolVersion: '1.0' },
      ],
    };
    assert.deepEqual(listEndpoints(card, CARD_URL), [{ wire: '1.0', url: 'https://seller.example/ok' }]);
  });
});

describe('selectEndpoint', () => {
  const dual = {
    supportedInterfaces: [
      { url: 'https://seller.example/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://seller.example/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  };

  it('prefers 1.0 when not pinned', () => {
    assert.equal(selectEndpoint(dual, CARD_URL, 'auto').url, 'https://seller.example/v1');
  });

  it('honours a v0.3 pin', () => {
    assert.equal(selectEndpoint(dual, CARD_URL, '0.3').url, 'https://seller.example/v03');
  });

  it('refuses a pin the card does not offer, naming what it offers', () => {
    const v03only = { url: 'https://seller.example/', protocolVersion: '0.3.0' };
    assert.throws(
      () => selectEndpoint(v03only, CARD_URL, '1.0'),
      (e: unknown) =>
        e instanceof AdcpWireError && e.code === 'unsupported_version' && /offers A2A 0\.3 only/.test(e.message),
    );
  });

  it('refuses a card without a usable interface', () => {
    assert.throws(
      () => selectEndpoint({ supportedInterfaces: [] }, CARD_URL, 'auto'),
      (e: unknown) => e instanceof AdcpWireError && e.code === 'protocol',
    );
  });
});

describe('cardCandidates', () => {
  it('tries the path first, then the origin, agent-card.json before agent.json', () => {
    assert.deepEqual(cardCandidates('https://s.example/a2a/?x=1'), [
      'https://s.example/a2a/.well-known/agent-card.json',
      'https://s.example/.well-known/agent-card.json',
      'https://s.example/a2a/.well-known/agent.json',
      'https://s.example/.well-known/agent.json',
    ]);
  });

  it('uses a URL naming a .json file as the card itself', () => {
    assert.deepEqual(cardCandidates('https://s.example/cards/seller.json'), ['https://s.example/cards/seller.json']);
  });
});

describe('cardProblem', () => {
  it('accepts a v0.3 card and a 1.0 card', () => {
    assert.equal(cardProblem({ url: 'https://s.example/' }), undefined);
    assert.equal(cardProblem({ supportedInterfaces: [] }), undefined);
  });

  it('names what is wrong with a bad card', () => {
    assert.deepEqual(
      [
        [],
        'x',
        { supportedInterfaces: {} },
        { url: 3, supportedInterfaces: [] },
        { name: 'n' },
        { url: 'u', skills: {} },
      ].map(cardProblem),
      [
        'card is not a JSON object',
        'card is not a JSON object',
        'supportedInterfaces is not an array',
        'url is not a string',
        'card names no interface (no supportedInterfaces, no url)',
        'skills is not an array',
      ],
    );
  });
});
