import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/adcp.js', import.meta.url));

export interface ServeProcess {
  /** The seller's base URL (`http://127.0.0.1:PORT`). */
  url: string;
  mcp: string;
  a2a: string;
  child: ChildProcess;
  /** SIGTERM, resolved once the process exited. */
  stop(): Promise<void>;
  /** Sends `signal` (SIGKILL by default), resolved once the process exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface SpawnServeOptions {
  /** Added to the environment (ADCP_STORE_URL is always removed first). */
  env?: NodeJS.ProcessEnv;
  /** How long it may take to print its endpoints (default 90 s). */
  startMs?: number;
}

/** Ends `child` with `signal`; resolved once it exited (at once if it already had). */
export function killChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/**
 * Starts `adcp serve --json` as a child process (127.0.0.1; `--port 0` unless `args` name a
 * port); resolves once it printed its endpoints (at most 90 s).
 */
export function spawnServe(args: string[] = [], options: SpawnServeOptions = {}): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.ADCP_STORE_URL;
  Object.assign(env, options.env);
  const port = args.includes('--port') ? [] : ['--port', '0'];
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--json', ...port, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => killChild(child, signal);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`adcp serve did not start: ${err}`));
    }, options.startMs ?? 90_000);
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      clearTimeout(timer);
      const { url, mcp, a2a } = JSON.parse(line) as { url: string; mcp: string; a2a: string };
      resolve({ url, mcp, a2a, child, stop: () => kill('SIGTERM'), kill });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`adcp serve exited ${code}: ${err}`));
    });
  });
}
