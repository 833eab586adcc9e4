import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/adcp.js', import.meta.url));

export interface ServeProcess {
  mcp: string;
  stop(): Promise<void>;
}

/** Starts `adcp serve --json --port 0` as a child process (127.0.0.1); resolves once it printed its endpoints. */
export function spawnServe(args: string[] = []): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.ADCP_STORE_URL;
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--json', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`adcp serve did not start: ${err}`));
    }, 90_000);
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      clearTimeout(timer);
      resolve({ mcp: (JSON.parse(line) as { mcp: string }).mcp, stop });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`adcp serve exited ${code}: ${err}`));
    });
  });
}
