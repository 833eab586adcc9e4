// Preloaded with --require: makes better-sqlite3 unresolvable, as in an app that never installed
// the optional driver (the real CLI runs; only the driver is missing).
const Module = require('node:module');
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'better-sqlite3') {
    const error = new Error(`Cannot find module 'better-sqlite3'`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return original.call(this, request, ...rest);
};
