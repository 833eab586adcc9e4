import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError, parseCommand, printable, usageError } from './args.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { safeJson } from './safe-json.js';
import { generateRequestSigningKey } from '../signing/signing-key-file.js';

const HELP = `Usage: adcp signing generate --kid KID [--alg ed25519|es256] [--out DIR]

Generates an RFC 9421 request-signing key pair for the AdCP request profile and writes two files:
  DIR/KID.private.jwk.json   the private key (mode 0600; never overwrites): pass it to
                             adcp call --sign-key, or AdcpClient({ signing })
  DIR/KID.jwks.json          the public JWK set to publish at your agent's jwks_uri
                             (use sig, key_ops [verify], adcp_use request-signing)

Options:
  --kid KID        the key id counterparties will see in keyid (letters, digits, . _ -)
  --alg ALG        ed25519 (default) or es256
  --out DIR        where to write the two files (default: the current folder)
  --json           print the two paths and the public JWK set as JSON
  -h, --help       show this help

Exit codes: 0 written, 1 a file could not be written (or already exists), 2 usage error.
`;

const SPEC = {
  name: 'signing generate',
  help: HELP,
  positionals: [],
  options: {
    kid: { type: 'string' },
    alg: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
  },
} as const;

/** `adcp signing generate`: a request-signing key pair and its public JWK set. */
export const signingCommand: Command = async (argv: string[], io: CliIo) => {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    (sub === undefined ? io.stderr : io.stdout).write(HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  if (sub !== 'generate') {
    return usageError(io, 'signing', new UsageError(`unknown subcommand '${printable(sub)}'; try 'generate'.`));
  }
  const parsed = parseCommand(rest, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const { kid, alg = 'ed25519', out = '.', json } = parsed.values;
  if (kid === undefined || !/^[A-Za-z0-9._-]{1,128}$/.test(kid)) {
    return usageError(io, 'signing generate', new UsageError('--kid takes 1-128 letters, digits, dots, _ or -.'));
  }
  if (alg !== 'ed25519' && alg !== 'es256') {
    return usageError(io, 'signing generate', new UsageError(`--alg takes ed25519 or es256, not '${printable(alg)}'.`));
  }
  const { privateJwk, publicJwks } = generateRequestSigningKey(kid, alg);
  const dir = path.resolve(io.cwd, out);
  const privatePath = path.join(dir, `${kid}.private.jwk.json`);
  const publicPath = path.join(dir, `${kid}.jwks.json`);
  try {
    // 'wx': never overwrite a key someone may already have published.
    await writeFile(privatePath, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await writeFile(publicPath, `${JSON.stringify(publicJwks, null, 2)}\n`, { flag: 'wx' });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr.write(`adcp signing generate: ${printable(reason)}\n`);
    return EXIT.failed;
  }
  if (json === true) {
    io.stdout.write(`${safeJson({ private_key: privatePath, jwks: publicPath, public_jwks: publicJwks })}\n`);
  } else {
    io.stdout.write(
      `wrote ${printable(privatePath)} (private, mode 0600)\nwrote ${printable(publicPath)} (publish at your jwks_uri)\n` +
        `sign calls with: adcp call URL TOOL ARGS --sign-key ${printable(privatePath)}\n`,
    );
  }
  return EXIT.ok;
};
