// Preloaded (`node --import`) into an `adcp demo` process by bin.test.ts: a fault from outside the
// product. The buyer's A2A get_products request gets a JSON-RPC internal error instead of the
// seller's answer, so the demo's step "get_products (A2A)" cannot do what it should. Nothing else
// is touched (the MCP calls, the other A2A calls and the webhooks go through).
const real = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const body = typeof init?.body === 'string' ? init.body : '';
  if (new URL(url).pathname.startsWith('/a2a') && body.includes('"get_products"')) {
    const id = JSON.parse(body).id ?? null;
    const error = { code: -32603, message: 'fault injected by the test' };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id, error }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }
  return real(input, init);
};
