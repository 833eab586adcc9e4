// Preloaded by scripts/run-tests.mjs into each test file's own process. When a file runs past its
// timeout the runner stops it without a word of where it stood ("test timed out"); so a file still
// running at three quarters of its timeout says on stderr what keeps it busy: its open sockets,
// servers and timers. The reporter shows a failing file's last output; a passing file's is dropped.
const timeoutMs = Number(process.env['ADCP_TEST_FILE_TIMEOUT_MS']);
// Only in a file's process (the runner sets NODE_TEST_CONTEXT there), never in the runner itself.
if (process.env['NODE_TEST_CONTEXT'] !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0) {
  // Counted from the process's start, as the runner counts the timeout from its spawn.
  const dueMs = Math.floor(timeoutMs * 0.75) - Math.round(process.uptime() * 1000);
  setTimeout(
    () => {
      const lines = [
        `test-watchdog: still running after ${Math.round(process.uptime())} s ` +
          `(timeout ${timeoutMs / 1000} s); what keeps it busy:`,
        ...openHandles().map((line) => `  ${line}`),
      ];
      process.stderr.write(`${lines.join('\n')}\n`);
    },
    Math.max(0, dueMs),
  ).unref();
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
