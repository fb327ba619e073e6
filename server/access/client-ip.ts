/**
 * @module
 * The client address used for the public throttle. `X-Forwarded-For` is honoured only when
 * TRUSTED_PROXY_HOPS > 0 (otherwise any client could claim any address): with N trusted proxies in front,
 * the client is the N-th address from the right, the one the outermost trusted proxy saw.
 */

export function clientIp(socketIp: string, forwardedFor: string | undefined, trustedHops: number): string {
  if (trustedHops <= 0 || !forwardedFor) return socketIp
  const hops = forwardedFor
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (hops.length === 0) return socketIp
  return hops[Math.max(0, hops.length - trustedHops)]!
}
