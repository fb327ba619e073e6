/**
 * @module
 * A throwaway CA and a server certificate for 127.0.0.1 and localhost (openssl CLI, EC P-256, valid 1 day),
 * so the benchmark's receiver speaks HTTPS as real receivers do and both clients pay the same TLS costs. The
 * webhook tests' receivers use the same (test/helpers/webhook-receiver.ts).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export interface BenchTls {
  readonly ca: string
  readonly key: string
  readonly cert: string
}

export function makeBenchTls(dir: string): BenchTls {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=bench CA')
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost')
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'san.ext'
  )
  const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8')
  return { ca: read('ca.pem'), key: read('server.key'), cert: read('server.pem') }
}
