// A private PostgreSQL cluster for tests that must restart or stop the database: started with
// scripts/pg-start.sh under its own state file, so the shared development/CI cluster is untouched.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCluster {
  url: string;
  /** The cluster's data directory (its postmaster.pid names the server process). */
  dataDir: string;
  /** `pg_ctl restart -m fast`: every open connection is cut, as in a real database restart. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const root = new URL('../../', import.meta.url).pathname;

function run(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(root, 'scripts', script)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${script} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}

export async function startTestCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-pg-state-'));
  const env = { ...process.env, ADCP_PG_STATE: join(dir, 'pg.env'), ADCP_PG_DATABASE: 'adcp_restart' };
  const out = await run('pg-start.sh', env);
  const url = /ADCP_TEST_PG_URL=(\S+)/.exec(out)?.[1];
  if (url === undefined) throw new Error(`pg-start.sh printed no URL: ${out}`);
  const dataDir = /^PG_DATA=(.*)$/m.exec(readFileSync(env.ADCP_PG_STATE, 'utf8'))?.[1] ?? '';
  return {
    url,
    dataDir,
    restart: async () => {
      await run('pg-restart.sh', env);
    },
    stop: async () => {
      await run('pg-stop.sh', env);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
