// Preloaded by scripts/run-tests.mjs into each test file's own process. When a file runs past its
// timeout the runner stops it without a word of where it stood ("test timed out"); so a file still
// running at three quarters of its timeout says on stderr what keeps it busy: its open sockets,
// servers and timers. The reporter shows a failing file's last output; a passing file's is dropped.
//
// A main thread that is blocked (a synchronous loop, or a synchronous wait such as a loader's
// Atomics.wait) runs no timer, so that report never comes. A small worker thread watches for it:
// if the main thread's report is not out a few seconds after it was due, the worker writes the
// main thread's stack itself (the inspector pauses the main thread even inside a loop or a wait).
import { Worker } from 'node:worker_threads';

/**
 * The worker's code: after the main thread's report was due (plus a grace), if it did not run,
 * pause the main thread through the inspector and write its stack straight to fd 2 (the worker's
 * own stderr goes through the main thread, which is blocked).
 */
const BLOCKED_MAIN_THREAD_WATCH = `
const { workerData } = require('node:worker_threads');
const { Session } = require('node:inspector');
const { writeSync } = require('node:fs');
const { reported, dueMs, graceMs, timeoutMs } = workerData;
// A worker with nothing pending ends: this keeps it (never the process: the worker is unref'd).
const alive = setInterval(() => {}, 1 << 30);
setTimeout(() => {
  if (Atomics.load(reported, 0) === 1) return clearInterval(alive);
  const head = 'test-watchdog: the main thread is blocked (a synchronous loop or wait), ' +
    Math.round(process.uptime()) + ' s in (timeout ' + timeoutMs / 1000 + ' s); its stack:';
  const session = new Session();
  session.connectToMainThread();
  const urls = new Map();
  session.on('Debugger.scriptParsed', ({ params }) => urls.set(params.scriptId, params.url));
  session.on('Debugger.paused', ({ params }) => {
    const frames = params.callFrames.slice(0, 30).map((frame) => {
      const { scriptId, lineNumber, columnNumber } = frame.location;
      const url = frame.url || urls.get(scriptId) || '?';
      return '  at ' + (frame.functionName || '<anonymous>') + ' (' + url + ':' + (lineNumber + 1) + ':' +
        (columnNumber + 1) + ')';
    });
    writeSync(2, head + '\\n' + frames.join('\\n') + '\\n');
    session.post('Debugger.resume', () => {
      session.disconnect();
      clearInterval(alive);
    });
  });
  session.post('Debugger.enable', () => session.post('Debugger.pause'));
}, dueMs + graceMs);
`;

const timeoutMs = Number(process.env['ADCP_TEST_FILE_TIMEOUT_MS']);
// Only in a file's process (the runner sets NODE_TEST_CONTEXT there), never in the runner itself.
if (process.env['NODE_TEST_CONTEXT'] !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0) {
  // Counted from the process's start, as the runner counts the timeout from its spawn.
  const dueMs = Math.max(0, Math.floor(timeoutMs * 0.75) - Math.round(process.uptime() * 1000));
  const reported = new Int32Array(new SharedArrayBuffer(4));
  setTimeout(() => {
    Atomics.store(reported, 0, 1);
    const lines = [
      `test-watchdog: still running after ${Math.round(process.uptime())} s ` +
        `(timeout ${timeoutMs / 1000} s); what keeps it busy:`,
      ...openHandles().map((line) => `  ${line}`),
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }, dueMs).unref();
  // The worker loads nothing but node's own modules: no loader hooks (execArgv empty), no file.
  new Worker(BLOCKED_MAIN_THREAD_WATCH, {
    eval: true,
    execArgv: [],
    env: {},
    workerData: { reported, dueMs, graceMs: Math.min(5000, timeoutMs / 40), timeoutMs },
    stdout: true,
    stderr: true,
  }).unref();
}
/**
 * Its open resources by kind (timers included), then each connection, server and child process
 * with what tells them apart (`_getActiveHandles` is undocumented in node: skipped if gone).
 */
function openHandles() {
  const kinds = new Map();
  for (const kind of process.getActiveResourcesInfo()) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  const lines = [[...kinds].map(([kind, count]) => `${kind} x${count}`).join(', ')];
  const handles = typeof process._getActiveHandles === 'function' ? process._getActiveHandles() : [];
  for (const handle of handles) {
    const name = handle?.constructor?.name;
    if (name === 'Socket' && handle.remotePort !== undefined) {
      lines.push(`Socket ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`);
    } else if (name === 'Server' && typeof handle.address === 'function') {
      lines.push(`Server ${JSON.stringify(handle.address())}`);
    } else if (name === 'ChildProcess') lines.push(`ChildProcess ${handle.pid} ${handle.spawnargs?.join(' ')}`);
  }
  return lines;
}
