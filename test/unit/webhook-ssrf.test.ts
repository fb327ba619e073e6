/**
 * The SSRF rule at registration (docs/webhooks.md): webhook URLs whose host is, or resolves to, loopback,
 * private, link-local (cloud metadata), CGNAT, multicast, reserved or unspecified addresses, in any written
 * form (decimal, octal, hex, short IPv4; IPv4-mapped IPv6), are refused with a 400 naming why; public ones
 * pass; WEBHOOK_ALLOW_PRIVATE opens exactly the CIDRs it lists. No connection is made: names resolve
 * through a stub (and `localhost` through the system's hosts file).
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../server/config.js'
import { ApiError } from '../../engine/errors.js'
import { AddressPolicy, parseCidrList } from '../../engine/webhooks/address-policy.js'
import { checkWebhookUrl, systemResolve, type Resolve } from '../../engine/webhooks/url-check.js'

const HOSTS: Record<string, string[]> = {
  'public.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'loopback.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
  'metadata.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:127.0.0.1']
}
const stub: Resolve = async (name) => {
  if (name === 'localhost') return systemResolve(name)
  const list = HOSTS[name]
  if (!list) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}

async function refusal(url: string, policy = new AddressPolicy()): Promise<string> {
  try {
    await checkWebhookUrl(url, policy, stub)
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(400)
    expect((err as ApiError).param).toBe('url')
    return (err as ApiError).message
  }
  return 'accepted'
}

describe('SSRF rule at registration', () => {
  it.each([
    ['https://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
    ['https://localhost/hook', /localhost resolves to 127\.0\.0\.1 is a loopback address/],
    ['https://loopback.example.com/hook', /resolves to 127\.0\.0\.1 is a loopback/],
    ['https://10.0.0.1/', /private/],
    ['https://10.255.255.255/', /private/],
    ['https://172.16.0.1/', /private/],
    ['https://172.31.255.254/', /private/],
    ['https://192.168.1.1/', /private/],
    ['https://169.254.169.254/latest/meta-data/', /link-local.*metadata/],
    ['https://metadata.example.com/', /169\.254\.169\.254 is a link-local/],
    ['https://100.64.0.1/', /carrier-grade NAT/],
    ['https://100.100.100.200/', /carrier-grade NAT/],
    ['https://[::1]/', /::1 is a loopback address/],
    ['https://[::ffff:127.0.0.1]/', /127\.0\.0\.1 is a loopback address/],
    ['https://[::ffff:a9fe:a9fe]/', /169\.254\.169\.254 is a link-local/],
    ['https://mapped.example.com/', /127\.0\.0\.1 is a loopback/],
    ['https://[fd00:ec2::254]/', /unique-local/],
    ['https://[fe80::1]/', /link-local/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://0/', /0\.0\.0\.0 is an unspecified/],
    ['https://[::]/', /unspecified/],
    ['https://2130706433/', /127\.0\.0\.1 is a loopback/], // decimal
    ['https://0177.0.0.1/', /127\.0\.0\.1 is a loopback/], // octal
    ['https://0x7f.0.0.1/', /127\.0\.0\.1 is a loopback/], // hex
    ['https://127.1/', /127\.0\.0\.1 is a loopback/], // short form
    ['https://017700000001/', /127\.0\.0\.1 is a loopback/], // octal whole
    ['https://224.0.0.1/', /multicast/],
    ['https://255.255.255.255/', /broadcast/],
    ['https://192.0.2.10/', /reserved/],
    ['https://198.18.0.1/', /reserved/],
    ['https://[64:ff9b::7f00:1]/', /NAT64/],
    ['https://mixed.example.com/', /10\.0\.0\.7 is a private/],
    ['https://nowhere.example.com/', /does not resolve/]
  ])('%s is refused', async (url, why) => {
    expect(await refusal(url)).toMatch(why)
  })

  it.each([
    'https://public.example.com/hook',
    'https://93.184.215.14/hook',
    'https://172.32.0.1/', // just outside 172.16/12
    'https://[2606:4700:4700::1111]/'
  ])('%s is accepted', async (url) => {
    expect(await refusal(url)).toBe('accepted')
  })

  it('WEBHOOK_ALLOW_PRIVATE opens exactly the CIDRs listed', async () => {
    const policy = new AddressPolicy(parseCidrList('127.0.0.1/32, 10.1.0.0/16'))
    expect(await refusal('https://127.0.0.1:8443/x', policy)).toBe('accepted')
    expect(await refusal('https://[::ffff:127.0.0.1]/x', policy)).toBe('accepted')
    expect(await refusal('https://10.1.2.3/x', policy)).toBe('accepted')
    expect(await refusal('https://10.2.0.1/x', policy)).toMatch(/private/)
    expect(await refusal('https://127.0.0.2/x', policy)).toMatch(/loopback/)
    expect(await refusal('https://169.254.169.254/x', policy)).toMatch(/link-local/)
  })

  it('the config reads WEBHOOK_ALLOW_PRIVATE and WEBHOOK_KEY, naming them when wrong', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1, ::1' }).webhooks.allowPrivate).toEqual([
      '127.0.0.1/32',
      '::1/128'
    ])
    expect(loadConfig({}).webhooks.allowPrivate).toEqual([])
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/33' })).toThrow(ConfigError)
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'localhost' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/)
    expect(() => loadConfig({ WEBHOOK_KEY: 'short' })).toThrow(/WEBHOOK_KEY/)
    expect(loadConfig({ WEBHOOK_KEY: 'ab'.repeat(32) }).webhooks.key).toHaveLength(32)
  })
})
