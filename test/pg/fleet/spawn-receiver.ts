// Starts test/pg/fleet/receiver.ts in its own process (node --import tsx) and waits for its port.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ReceiverProcess {
  port: number;
  child: ChildProcess;
  /** SIGKILL: no cleanup, in-flight handlers cut wherever they are. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

const script = fileURLToPath(new URL('./receiver.ts', import.meta.url));

/** `execArgv`: extra node flags (`--cpu-prof` for profiling a receiver). */
export function spawnReceiver(env: Record<string, string>, execArgv: string[] = []): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, [...execArgv, '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`receiver did not start in 90 s: ${stderr}`));
    }, 90_000);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (!out.includes('\n') || line === undefined) return;
      clearTimeout(timer);
      const { port } = JSON.parse(line) as { port: number };
      resolve({
        port,
        child,
        kill: () => signal('SIGKILL'),
        stop: async () => {
          const hard = setTimeout(() => child.kill('SIGKILL'), 5000);
          await signal('SIGTERM');
          clearTimeout(hard);
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`receiver exited (${code}) before listening: ${stderr}`));
    });
  });
}
