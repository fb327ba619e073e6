/**
 * Trust of a test CA for the servers a test file runs in its own process. NODE_EXTRA_CA_CERTS is read only at
 * process start (Node 20 has no tls.setDefaultCACertificates), and the server builds its UndiciTransport
 * without a `ca`, so this adds the test CA to Node's default trust for the file's process, which is what
 * NODE_EXTRA_CA_CERTS does for a spawned server (test/e2e/webhooks-crash.test.ts). The server code is unchanged.
 */
import tls from 'node:tls'

/**
 * Adds `caPem` to the trust of every TLS context created without its own `ca` in this process, as
 * NODE_EXTRA_CA_CERTS would at start (tls.connect builds its context through tls.createSecureContext).
 * Returns the undo.
 */
export function trustInProcess(caPem: string): () => void {
  const original = tls.createSecureContext
  const patched: typeof tls.createSecureContext = (options) =>
    original(options?.ca === undefined ? { ...options, ca: [...tls.rootCertificates, caPem] } : options)
  Object.defineProperty(tls, 'createSecureContext', { value: patched, writable: true, configurable: true })
  return () =>
    Object.defineProperty(tls, 'createSecureContext', { value: original, writable: true, configurable: true })
}
