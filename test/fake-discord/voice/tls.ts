import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A self-signed certificate for 127.0.0.1, as PEM text and as files on disk. */
export interface FakeVoiceCertificate {
  /** Path of the PEM certificate: give it to a bot child process as NODE_EXTRA_CA_CERTS. */
  certPath: string;
  keyPath: string;
  cert: string;
  key: string;
}

let pending: Promise<FakeVoiceCertificate> | undefined;
let trusted = false;

/**
 * The certificate the fake voice server serves `wss://127.0.0.1` with. Made once per process with
 * the `openssl` CLI into a temporary directory that is removed when the process exits.
 */
export function fakeVoiceCertificate(): Promise<FakeVoiceCertificate> {
  pending ??= generate();
  return pending;
}

async function generate(): Promise<FakeVoiceCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-discord-voice-'));
  // Only synchronous work runs at exit.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    keyPath,
    '-out',
    certPath,
  ]);
  const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  return { certPath, keyPath, cert, key };
}

/**
 * Makes TLS clients of THIS process (the `ws` client inside @discordjs/voice included) trust the
 * fake voice certificate, on top of the default CAs. For a bot in a child process, set
 * `NODE_EXTRA_CA_CERTS` to `certPath` instead: Node reads that variable only at start-up.
 */
export async function trustFakeVoiceCertificate(): Promise<void> {
  const { cert } = await fakeVoiceCertificate();
  if (trusted) return;
  setDefaultCACertificates([...getCACertificates('default'), cert]);
  trusted = true;
}
