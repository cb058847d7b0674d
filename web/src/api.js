// Calls to the squeeze API with the token the user gave (kept in sessionStorage): every data
// call carries `Authorization: Bearer TOKEN`; a 401 forgets the token and asks again.
const KEY = 'squeeze.token';

export class Unauthorized extends Error {}

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
// not have yet). Throws Unauthorized on 401 and an Error with the API's message otherwise.
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
  if (!res.ok) throw new Error((json && json.error) || `${method} ${path}: HTTP ${res.status}`);
  return json;
}

export const get = (path, opts) => call('GET', path, opts);

// Every job matching `query` (follows next_after pages).
export async function allJobs(query = '') {
  const jobs = [];
  let after = null;
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
