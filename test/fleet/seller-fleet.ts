// The seller fleet of the fleet tests: `count` `adcp serve --store-url postgres://...` processes on
// one throwaway schema, behind the round-robin proxy (each request to the next instance).
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';
import { dropTestSchemas, testSchemaUrl } from '../pg/pg-test-env.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';

export interface SellerFleet {
  proxy: RoundRobinProxy;
  /** The running instances, by index (a restarted one replaces its entry). */
  instances: ServeProcess[];
  /** What each instance printed on stderr so far (a restarted one's added to its entry). */
  stderr: string[];
  /** The store URL every instance was given (its `search_path` names the schema). */
  storeUrl: string;
  /** The throwaway schema the fleet's tables are in. */
  schema: string;
  /** Starts instance `index` (again, after a kill) and routes the proxy's share of requests to it. */
  start(index: number): Promise<ServeProcess>;
  /** Ends every instance (SIGTERM, or `signal`), then the proxy; drops the schema. */
  close(signal?: NodeJS.Signals): Promise<void>;
}

export interface SellerFleetOptions {
  /** Prefix of the schema's name. */
  prefix: string;
  count?: number;
  /** Added to every instance's environment. */
  env?: NodeJS.ProcessEnv;
}

export async function startSellerFleet(options: SellerFleetOptions): Promise<SellerFleet> {
  const count = options.count ?? 3;
  const storeUrl = await testSchemaUrl(options.prefix);
  const schema = new URL(storeUrl).searchParams.get('options')?.replace('-c search_path=', '') ?? '';
  const proxy = await startRoundRobinProxy(count);
  const instances: ServeProcess[] = [];
  const stderr: string[] = Array.from({ length: count }, () => '');
  const start = async (index: number) => {
    const instance = await spawnServe(['--store-url', storeUrl, '--public-url', proxy.url], {
      ...(options.env === undefined ? {} : { env: options.env }),
      startMs: 120_000, // spawned servers may take long to start on a loaded machine
    });
    instances[index] = instance;
    instance.child.stderr?.on('data', (chunk: Buffer) => (stderr[index] += chunk.toString()));
    proxy.setUpstream(index, Number(new URL(instance.url).port));
    return instance;
  };
  const close = async (signal: NodeJS.Signals = 'SIGTERM') => {
    await Promise.all(instances.map((instance) => instance.kill(signal)));
    await proxy.close();
    await dropTestSchemas();
  };
  try {
    // One at a time: the first migrates the schema (the others would wait on its lock anyway).
    for (let i = 0; i < count; i += 1) await start(i);
  } catch (error) {
    await close('SIGKILL');
    throw error;
  }
  return { proxy, instances, stderr, storeUrl, schema, start, close };
}
