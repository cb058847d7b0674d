// Calls to the squeeze API with the token the user gave (kept in sessionStorage): every data
// call carries `Authorization: Bearer TOKEN`; a 401 forgets the token and asks again.
const KEY = 'squeeze.token';

export class Unauthorized extends Error {}

// An answer other than 2xx: the API's message, and the HTTP status in `status`.
export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

export function token() {
  return sessionStorage.getItem(KEY);
}

export function setToken(value) {
  sessionStorage.setItem(KEY, value);
}

export function forgetToken() {
  sessionStorage.removeItem(KEY);
}

let onUnauthorized = () => {};
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

// One call: the parsed JSON, or null for a 404 when `optional` (an endpoint this daemon does
// not have yet). Throws Unauthorized on 401 and an ApiError with the API's message otherwise.
export async function call(method, path, { optional = false, body } = {}) {
  const headers = { Authorization: `Bearer ${token()}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store',
  });
  if (res.status === 401) {
    forgetToken();
    onUnauthorized();
    throw new Unauthorized('the token was refused');
  }
  if (res.status === 404 && optional) return null;
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  if (!res.ok) throw new ApiError((json && json.error) || `${method} ${path}: HTTP ${res.status}`, res.status);
  return json;
}

export const get = (path, opts) => call('GET', path, opts);

// The code of a `squeeze dashboard` link (#login=64 hex digits), or null.
export function loginCode(hash) {
  const m = /^#login=([0-9a-f]{64})$/.exec(hash || '');
  return m ? m[1] : null;
}

// Trades a login code for a session token ({token, user, ...}); throws with the API's reason.
export async function redeemLoginCode(code) {
  const res = await fetch('/v1/dashboard-login/redeem', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code }), cache: 'no-store',
  });
  const json = await res.json().catch(() => null);
  if (!res.ok || !json || typeof json.token !== 'string') {
    throw new ApiError((json && json.error) || `HTTP ${res.status}`, res.status);
  }
  return json;
}

// Every job matching `query` (follows next_after pages), from the one after id `after` on.
export async function allJobs(query = '', after = null) {
  const jobs = [];
  for (;;) {
    const q = `limit=1000${query ? `&${query}` : ''}${after ? `&after=${after}` : ''}`;
    const page = await get(`/v1/jobs?${q}`);
    jobs.push(...page.jobs);
    after = page.next_after;
    if (!after) return jobs;
  }
}

// /metrics needs no token; the counters of it the GPUs view shows.
export async function metric(name) {
  const res = await fetch('/metrics', { cache: 'no-store' });
  if (!res.ok) return null;
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : null;
}
