import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A throwaway CA made with openssl, and client certificates it signs (CN = user, O = groups). */
export function makeCA(dir: string): {
  cert: string;
  key: string;
  clientCert(name: string, cn: string, groups: string[]): { cert: Buffer; key: Buffer };
  /** A serving certificate for an IP address (its SAN), as an https server in a test shows it. */
  serverCert(name: string, ip: string): { cert: Buffer; key: Buffer };
} {
  const cert = join(dir, 'ca.crt');
  const key = join(dir, 'ca.key');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=knode-test-ca',
    '-keyout',
    key,
    '-out',
    cert,
  );
  const sign = (name: string, subject: string, extra: string[]) => {
    const base = join(dir, name);
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      subject,
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.csr`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      `${base}.csr`,
      '-CA',
      cert,
      '-CAkey',
      key,
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      `${base}.crt`,
      ...extra,
    );
    return { cert: readFileSync(`${base}.crt`), key: readFileSync(`${base}.key`) };
  };
  return {
    cert,
    key,
    clientCert(name, cn, groups) {
      return sign(name, `${groups.map((g) => `/O=${g}`).join('')}/CN=${cn}`, []);
    },
    serverCert(name, ip) {
      const ext = join(dir, `${name}.ext`);
      writeFileSync(ext, `subjectAltName=IP:${ip}\nextendedKeyUsage=serverAuth\n`);
      return sign(name, `/CN=${ip}`, ['-extfile', ext]);
    },
  };
}
