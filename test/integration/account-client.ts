/**
 * A minimal cookie-keeping HTTP client for the accounts tests: remembers the `tw_session` cookie a response
 * sets (or clears) and the session's csrf_token, and sends them like a page of the dashboard would. Each
 * client has its own client address (X-Forwarded-For; the test servers trust one proxy hop), so the login
 * throttling one test provokes does not spill into another.
 */

export interface Answer {
  readonly status: number
  readonly headers: Headers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on the shape themselves
  readonly body: any
  /** the raw Set-Cookie header values */
  readonly cookies: string[]
}

export interface CallOptions {
  readonly body?: unknown
  /** X-CSRF-Token: true = the session's token (the default for state changes), a string = that value, false = none */
  readonly csrf?: boolean | string
  readonly headers?: Record<string, string>
  /** send the session cookie. @default true */
  readonly cookie?: boolean
}

let nextIp = 1

export class AccountClient {
  cookie: string | undefined
  csrf: string | undefined
  readonly ip = `198.51.100.${nextIp++}`

  constructor(readonly base: string) {}

  async call(method: string, path: string, o: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...o.headers }
    if (o.body !== undefined) headers['content-type'] ??= 'application/json'
    if (this.cookie && o.cookie !== false) headers['cookie'] = `other=1; tw_session=${this.cookie}`
    const csrf = o.csrf ?? method !== 'GET'
    if (csrf === true && this.csrf) headers['x-csrf-token'] = this.csrf
    else if (typeof csrf === 'string') headers['x-csrf-token'] = csrf
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      ...(o.body === undefined ? {} : { body: typeof o.body === 'string' ? o.body : JSON.stringify(o.body) })
    })
    const cookies = res.headers.getSetCookie()
    for (const c of cookies) {
      const m = /^tw_session=([^;]*)/.exec(c)
      if (m) this.cookie = m[1] === '' ? undefined : m[1]
    }
    const text = await res.text()
    const body =
      text && (res.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(text) : text
    if (body && typeof body === 'object' && typeof body.csrf_token === 'string') this.csrf = body.csrf_token
    return { status: res.status, headers: res.headers, body, cookies }
  }

  signup(email: string, password: string, invite?: string): Promise<Answer> {
    return this.call('POST', '/v1/account/signup', { body: { email, password, ...(invite ? { invite } : {}) } })
  }

  login(email: string, password: string): Promise<Answer> {
    return this.call('POST', '/v1/account/login', { body: { email, password } })
  }
}
