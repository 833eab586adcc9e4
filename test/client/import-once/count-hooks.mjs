// ESM loader hooks (run on the loader's thread) that report every resolution of the validator
// module to the child through `port`.
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  if (specifier.endsWith('schemas/adcp-validator.js')) port.postMessage(specifier);
  return next(specifier, context);
}
