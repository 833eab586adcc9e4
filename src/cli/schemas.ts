import { UsageError, parseCommand, printable, usageError } from './args.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { safeJson } from './safe-json.js';
import { formatTable } from './table.js';
import { findReleases, schemaCacheDir, schemaSearchPath } from '../schemas/schema-dirs.js';
import { PRECOMPILED_DIR } from '../schemas/precompiled.js';
import { DEFAULT_RELEASE, OPT_IN_RELEASES, SUPPORTED_RELEASES, selectRelease } from '../schemas/select-release.js';
import { toWireVersion } from '../schemas/release.js';
import { SchemaBundle } from '../schemas/schema-bundle.js';
import { AdcpSchemaError } from '../schemas/schema-error.js';
import { PINNED_SHA256, RELEASE_URL, SchemaSyncError, syncRelease } from '../schemas/sync/sync-release.js';

const HELP = `Usage: adcp schemas list|show|sync [options]

  list                 the AdCP releases found (schema folder, sync cache, built-in validators)
  show <tool>          a tool's request and response schemas (fields at the top level; --json: the
                       schemas themselves)
  sync                 download a release tarball, check its SHA-256 (the .sha256 sidecar beside it,
                       and the digest pinned in adcp-wire), unpack its schemas safely into the cache

Options:
  --version V          release: exact (3.1.19), release (3.1: newest 3.1.x) or major (3); for sync,
                       an exact version (default ${Object.keys(PINNED_SHA256)[1]})
  --from URL|FILE      sync: the tarball (its .sha256 beside it); default ${RELEASE_URL('{version}')}
                       (http only on loopback)
  --json               one JSON document
  -h, --help           show this help

Where: ADCP_SCHEMAS_DIR, then the cache
(ADCP_CACHE_DIR, else $XDG_CACHE_HOME/adcp-wire, else ~/.cache/adcp-wire), then the validators
compiled into the package. Sigstore signatures (.sig, .crt) are not checked: trust is checksum.

Exit codes:
  0  ok
  1  a check failed: checksum mismatch, unsafe or oversized archive, not a release; or show
     found no schema files (the built-in validators carry none: set ADCP_SCHEMAS_DIR or sync)
  2  usage error, or an unknown release or tool
  3  could not download or read the tarball

Examples:
  adcp schemas list
  adcp schemas show get_products --version 3.0
  adcp schemas sync --version 3.0.26 --from ./3.0.26.tgz
`;

const SPEC = {
  name: 'schemas',
  help: HELP,
  positionals: ['list|show|sync', 'tool'],
  min: 1,
  options: {
    version: { type: 'string' },
    from: { type: 'string' },
    json: { type: 'boolean' },
  },
} as const;

/** `adcp schemas list|show|sync`. */
export const schemasCommand: Command = async (argv, io) => {
  const parsed = parseCommand(argv, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const [action = '', tool] = parsed.positionals;
  const json = parsed.values.json === true;
  const env = { ...process.env, ...io.env };
  try {
    if (action === 'list') {
      if (tool !== undefined) throw new UsageError(`list takes no argument, not '${printable(tool)}'.`);
      return list(io, env, json);
    }
    if (action === 'show') {
      if (tool === undefined) throw new UsageError('show needs a tool name, e.g. adcp schemas show get_products.');
      return show(io, env, tool, parsed.values.version, json);
    }
    if (action === 'sync') {
      if (tool !== undefined) throw new UsageError(`sync takes no argument, not '${printable(tool)}' (use --version).`);
      return await sync(io, env, parsed.values.version, parsed.values.from, json);
    }
    throw new UsageError(`the first argument is list, show or sync, not '${printable(action)}'.`);
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, 'schemas', error);
    if (error instanceof AdcpSchemaError) {
      io.stderr.write(`adcp schemas: ${printable(error.message)}\n`);
      return EXIT.usage;
    }
    throw error;
  }
};

type Env = Record<string, string | undefined>;

function where(dir: string, env: Env): string {
  if (dir.startsWith(PRECOMPILED_DIR.replace(/\/$/, ''))) return 'built-in validators';
  if (dir.startsWith(schemaCacheDir(env))) return 'sync cache';
  return 'schema folder';
}

function list(io: CliIo, env: Env, json: boolean): number {
  const releases = findReleases(schemaSearchPath(env));
  const spoken = (v: string) => {
    const wire = toWireVersion(v);
    if ((SUPPORTED_RELEASES as readonly string[]).includes(wire)) return wire === DEFAULT_RELEASE ? 'default' : 'yes';
    return (OPT_IN_RELEASES as readonly string[]).includes(wire) ? 'opt-in' : 'no';
  };
  const rows = releases.map((r) => ({
    version: r.version,
    release: toWireVersion(r.version),
    supported: spoken(r.version),
    where: where(r.dir, env),
    dir: r.dir,
  }));
  if (json) {
    io.stdout.write(`${safeJson({ releases: rows, default: DEFAULT_RELEASE }, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout.write('No AdCP release found. Run `adcp schemas sync --version 3.1.19`, or set ADCP_SCHEMAS_DIR.\n');
    return EXIT.ok;
  }
  io.stdout.write(
    formatTable(
      ['version', 'release', 'supported', 'from', 'folder'],
      rows.map((r) => [r.version, r.release, r.supported, r.where, r.dir]),
    ),
  );
  return EXIT.ok;
}

function show(io: CliIo, env: Env, tool: string, version: string | undefined, json: boolean): number {
  const location = selectRelease(version ?? DEFAULT_RELEASE, findReleases(schemaSearchPath(env)));
  const bundle = new SchemaBundle(location);
  const info = bundle.tool(tool);
  if (info === undefined) {
    throw new AdcpSchemaError(
      'unknown_tool',
      `AdCP ${bundle.version} has no tool '${printable(tool)}' (adcp schemas show takes a name from its manifest, e.g. get_products).`,
    );
  }
  const read = (path: string): object | undefined => {
    try {
      return bundle.schema(path);
    } catch {
      return undefined; // the built-in validators carry no schema files
    }
  };
  const request = read(info.request);
  const response = read(info.response);
  // The built-in validators are compiled code, not schema JSON (decision 0168): say where the
  // schemas come from and exit 1, after what is known without them.
  const missing =
    request === undefined || response === undefined
      ? `the ${where(location.dir, env) === 'built-in validators' ? "package's built-in validators are compiled code and carry" : `folder ${printable(location.dir)} has`} no schema files for ${tool}; to read them, set ADCP_SCHEMAS_DIR to a schema folder or run adcp schemas sync --version ${bundle.version}.`
      : undefined;
  if (json) {
    io.stdout.write(
      `${safeJson({ tool, version: bundle.version, protocol: info.protocol, mutating: info.mutating, request_schema: info.request, response_schema: info.response, async_response_schemas: info.async, request: request ?? null, response: response ?? null, ...(missing === undefined ? {} : { missing }) }, 2)}\n`,
    );
    if (missing !== undefined) io.stderr.write(`adcp schemas: ${missing}\n`);
    return missing === undefined ? EXIT.ok : EXIT.failed;
  }
  const lines = [
    `${tool} (AdCP ${bundle.version}, ${info.protocol}, ${info.mutating ? 'mutating: idempotency_key required' : 'read-only'})`,
    `  request:  ${info.request}`,
    `  response: ${info.response}`,
    ...Object.entries(info.async).map(([status, path]) => `  ${`${status}:`.padEnd(9)} ${path}`),
    '',
  ];
  io.stdout.write(lines.join('\n'));
  for (const [label, schema] of [
    ['Request', request],
    ['Response', response],
  ] as const) {
    if (schema === undefined) continue;
    const fields = topFields(schema);
    io.stdout.write(`${label} fields:\n`);
    io.stdout.write(
      fields.length === 0
        ? '  (none at the top level: see --json)\n'
        : formatTable(['field', 'required', 'type'], fields),
    );
  }
  if (missing !== undefined) io.stderr.write(`adcp schemas: ${missing}\n`);
  return missing === undefined ? EXIT.ok : EXIT.failed;
}

/** Top-level fields of a schema and of its `allOf` parts: name, required, type (or `$ref` file). */
function topFields(schema: object): string[][] {
  const out = new Map<string, string[]>();
  const visit = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    const s = node as { properties?: Record<string, Record<string, unknown>>; required?: unknown; allOf?: unknown[] };
    const required = Array.isArray(s.required) ? (s.required as unknown[]) : [];
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const t = prop['type'];
      const type =
        typeof prop['$ref'] === 'string'
          ? String(prop['$ref']).split('/').pop()!
          : Array.isArray(prop['enum'])
            ? 'enum'
            : prop['const'] !== undefined
              ? 'const'
              : typeof t === 'string'
                ? t
                : Array.isArray(t)
                  ? t.join('|')
                  : 'any';
      out.set(name, [name, required.includes(name) ? 'yes' : '', type]);
    }
    for (const part of Array.isArray(s.allOf) ? s.allOf : []) visit(part);
  };
  visit(schema);
  return [...out.values()];
}

async function sync(
  io: CliIo,
  env: Env,
  version: string | undefined,
  from: string | undefined,
  json: boolean,
): Promise<number> {
  const v = version ?? Object.keys(PINNED_SHA256)[1]!;
  const options = {
    version: v,
    cacheDir: schemaCacheDir(env),
    ...(from === undefined ? {} : { from: resolveFrom(from, io.cwd) }),
  };
  try {
    const result = await syncRelease(options);
    if (json) io.stdout.write(`${safeJson(result, 2)}\n`);
    else {
      io.stdout.write(
        `AdCP ${result.version}: ${result.files} schema files (${result.bytes} bytes) in ${result.dir}\n`,
      );
      io.stdout.write(
        `  SHA-256 ${result.sha256}, trust: ${result.trust === 'checksum-pinned' ? 'checksum (matches the sidecar and the digest pinned in adcp-wire)' : 'checksum only (the sidecar; no digest pinned for this version)'}; Sigstore not checked\n`,
      );
    }
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof SchemaSyncError)) throw error;
    if (json) io.stdout.write(`${safeJson({ error: { code: error.code, message: error.message } }, 2)}\n`);
    io.stderr.write(`adcp schemas sync: ${printable(error.message)} (${error.code}); the cache is unchanged.\n`);
    if (error.code === 'unknown_version') return EXIT.usage;
    return error.code === 'unreachable' ? EXIT.unreachable : EXIT.failed;
  }
}

function resolveFrom(from: string, cwd: string): string {
  if (/^https?:\/\//i.test(from)) return from;
  if (/^[a-z][a-z0-9+.-]*:/i.test(from) && !/^[A-Za-z]:[\\/]/.test(from)) {
    throw new UsageError(`--from takes an http(s) URL or a file path, not '${printable(from)}'.`);
  }
  return from.startsWith('/') ? from : `${cwd}/${from}`;
}
