// The dashboard in headless Chromium (playwright-core, the system's chromium; no browser is
// downloaded), against a running `squeeze serve`. Started by tests/browser_dashboard_test.py,
// which starts and stops the daemon; by hand:
//   SQUEEZE_URL=... SQUEEZE_TOKEN=ADMIN SQUEEZE_USER_TOKEN=ALICE SQUEEZE_SIM_JSON=sim.json \
//   SQUEEZE_ADVISE_JSON=advise.json SQUEEZE_SCREENSHOTS=DIR node tests/dashboard.test.mjs
// Every check throws (exit 1) when the feature it looks at is broken. The pure helpers'
// checks (helpers.test.mjs) run first; the job pages' are in job_pages.mjs.
import './helpers.test.mjs';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { localWeek, time } from '../src/format.js';
import { checkEndedList, checkJobPage, checkOtherJobPages, checkRunTime, ZONE } from './job_pages.mjs';

process.env.TZ = ZONE; // the page's zone too: the times it shows are computed here the same way

const env = (name) => {
  if (!process.env[name]) throw new Error(`${name} is not set`);
  return process.env[name];
};
const base = env('SQUEEZE_URL');
const admin = env('SQUEEZE_TOKEN');
const alice = env('SQUEEZE_USER_TOKEN');
const aliceName = env('SQUEEZE_USER_NAME');  // her Unix account: the owner of her jobs
const adminName = env('SQUEEZE_ADMIN_NAME');  // the admin token's user: the daemon's account
const shots = env('SQUEEZE_SCREENSHOTS');
mkdirSync(shots, { recursive: true });

function log(m) { console.log(`[${new Date().toISOString().slice(11, 19)}] ${m}`); }

async function api(method, path, token, body) {
  const res = await fetch(base + path, {
    method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  return { status: res.status, json };
}

async function until(what, fn, timeoutMs = 15000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${last}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const chartData = (page, id) => page.evaluate((canvasId) => {
  const chart = window.Chart.getChart(document.getElementById(canvasId));
  return chart ? { labels: chart.data.labels, datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) } : null;
}, id);

const rowState = (page, id) => page.evaluate((jobId) =>
  document.querySelector(`#queue tr[data-id="${jobId}"]`)?.dataset.state ?? null, id);

async function run(page, requests) {
  // --- load: / leads to the dashboard, which asks for a token and shows no data before it.
  await page.goto(`${base}/`);
  assert.match(page.url(), /\/ui\/$/, 'GET / should lead to /ui/');
  await page.waitForSelector('#token');
  assert.equal(await page.locator('#queue').count(), 0, 'no queue before a token is given');
  assert.equal(requests.filter((r) => r.path.startsWith('/v1/')).length, 0, 'no API call before a token');

  // A wrong token is refused and asked for again.
  await page.fill('#token', 'not-a-token');
  await page.click('#login button');
  await until('the refused token message', async () =>
    (await page.textContent('#login-error'))?.includes('refused'));
  assert.equal(await page.evaluate(() => sessionStorage.getItem('squeeze.token')), null);

  // --- log in as alice: the queue shows admin's running job.
  await page.fill('#token', alice);
  await page.click('#login button');
  await page.waitForSelector('#queue');
  const blocker = Number(process.env.SQUEEZE_BLOCKER_ID);
  const t = { page, api, until, log, alice, blocker, shots, base };
  await until(`job ${blocker} running in the page`, async () => (await rowState(page, blocker)) === 'running');
  // Flagged to its owner (and everyone) as held but idle, from the GPUs' utilization.
  await until(`job ${blocker} flagged held but idle`, async () =>
    (await page.textContent(`#queue tr[data-id="${blocker}"]`)).includes('held but idle: 1% since'));

  // --- submit while the page is open: the page shows it by itself, with why and when.
  const submitted = await api('POST', '/v1/jobs', alice, {
    name: 'browser-wait', command: ['sleep', '600'], gpus: 2, pool: 'owned', estimate: '10m',
  });
  assert.equal(submitted.status, 201, JSON.stringify(submitted.json));
  const waiting = submitted.json.id;
  log(`alice submitted job ${waiting}`);
  await until(`job ${waiting} pending in the page`, async () => (await rowState(page, waiting)) === 'pending', 8000);
  const why = (await api('GET', `/v1/jobs/${waiting}/why`, alice)).json;
  const row = page.locator(`#queue tr[data-id="${waiting}"]`);
  await until('the why lines in the row', async () => (await row.textContent()).includes(why.explanation[0]));
  assert.ok((await row.textContent()).includes(`in the way: job ${blocker}`), await row.textContent());
  // Its REASON code, as squeue's: first in line for the owned pool's GPUs.
  await until('the REASON code in the row', async () =>
    (await row.locator('.reason-code').count()) > 0 && (await row.locator('.reason-code').textContent()) === 'Resources');
  assert.ok(why.expected_start_in_s > 0);
  assert.match(await row.locator('td').nth(9).textContent(), /^in \d+[hm]\d+[ms]/, 'the expected start');
  assert.equal(await row.locator('td').nth(2).textContent(), `${aliceName}ml`);
  await page.screenshot({ path: join(shots, 'queue.png'), fullPage: true });

  // Filter and sort.
  await page.fill('#f-owner', aliceName);
  assert.deepEqual(await page.$$eval('#queue tbody tr', (rs) => rs.map((r) => Number(r.dataset.id))), [waiting]);
  await page.fill('#f-owner', '');
  await page.click('th[data-sort="id"]'); // already by id: now descending
  const ids = await page.$$eval('#queue tbody tr', (rs) => rs.map((r) => Number(r.dataset.id)));
  assert.deepEqual(ids, [...ids].sort((a, b) => b - a));
  assert.ok(ids.includes(blocker) && ids.includes(waiting), String(ids));
  await checkRunTime(t, waiting);

  // --- hold and release (scontrol hold/release): offered on alice's waiting job, not on the
  // admin's; a held job says JobHeld and gets Release, which puts it back in line.
  assert.equal(await page.locator(`button[data-act][data-job="${blocker}"]`).count(), 0, 'no Hold on the admin\'s job for alice');
  await page.click(`button[data-act="hold"][data-job="${waiting}"]`);
  await until(`job ${waiting} held in the page`, async () =>
    (await row.locator('.reason-code').textContent()) === 'JobHeld'
    && (await page.locator(`button[data-act="release"][data-job="${waiting}"]`).count()) === 1);
  assert.equal(await page.textContent('#q-message'), `job ${waiting}: held`);
  const heldList = (await api('GET', '/v1/jobs?state=pending', alice)).json.jobs.find((j) => j.id === waiting);
  assert.equal(heldList.reason_code, 'JobHeld', JSON.stringify(heldList));
  await page.screenshot({ path: join(shots, 'queue-held.png'), fullPage: true });
  await page.click(`button[data-act="release"][data-job="${waiting}"]`);
  await until(`job ${waiting} released in the page`, async () =>
    (await row.locator('.reason-code').textContent()) === 'Resources'
    && (await page.locator(`button[data-act="hold"][data-job="${waiting}"]`).count()) === 1);
  assert.equal(await page.textContent('#q-message'), `job ${waiting}: released`);

  // --- a job array: its tasks show as ARRAY_TASK and its progress line counts them by state.
  const arrayJob = await api('POST', '/v1/jobs', alice, {
    name: 'browser-sweep', command: ['sleep', '600'], gpus: 2, pool: 'owned', array: '0-5%2',
  });
  assert.equal(arrayJob.status, 201, JSON.stringify(arrayJob.json));
  const arrayId = arrayJob.json.id;
  assert.equal(arrayJob.json.tasks, 6);
  const progress = page.locator(`.array-progress[data-array="${arrayId}"]`);
  await until(`array ${arrayId}'s progress line`, async () => (await progress.count()) > 0, 8000);
  assert.match(await progress.textContent(), /0 of 6 tasks ended/);
  assert.match(await progress.textContent(), /pending 6/);
  assert.match(await progress.textContent(), /at most 2 at once/);
  assert.equal(await page.locator(`#queue tr[data-id="${arrayId + 5}"] td`).first().textContent(), `${arrayId}_5`);
  assert.equal((await api('POST', `/v1/jobs/${arrayId}_5/cancel`, alice)).status, 200);
  await until('the progress line counts the cancelled task', async () =>
    /1 of 6 tasks ended/.test(await progress.textContent()) && /cancelled 1/.test(await progress.textContent()));
  await page.screenshot({ path: join(shots, 'queue-array.png'), fullPage: true });
  const all = await api('POST', `/v1/jobs/${arrayId}/cancel`, alice);
  assert.equal(all.status, 200, JSON.stringify(all.json));
  assert.equal(all.json.cancelled, 5);
  await until(`array ${arrayId}'s tasks gone from the waiting jobs`, async () => (await progress.count()) === 0);

  // --- cancel: offered on alice's own job only (the admin's runs on); hers is cancelled.
  assert.equal(await page.locator(`button[data-cancel="${blocker}"]`).count(), 0, 'no Cancel on the admin\'s job for alice');
  const refused = await api('POST', `/v1/jobs/${blocker}/cancel`, alice);
  assert.equal(refused.status, 403, 'and the API refuses it too');
  assert.equal((await api('GET', `/v1/jobs/${blocker}`, admin)).json.state, 'running');
  await page.click(`button[data-cancel="${waiting}"]`);
  await until(`job ${waiting} cancelled in the API`, async () =>
    (await api('GET', `/v1/jobs/${waiting}`, admin)).json.state === 'cancelled');
  await until(`job ${waiting} gone from the waiting and running jobs`, async () => (await rowState(page, waiting)) === null);
  await page.selectOption('#f-state', 'cancelled');
  await until(`job ${waiting} among the cancelled`, async () => (await rowState(page, waiting)) === 'cancelled');

  // --- job pages (job_pages.mjs): one that never ran, the admin's, and alice's that prints.
  await checkOtherJobPages(t, waiting);
  const printed = await checkJobPage(t);

  // --- GPUs: the chart holds what /v1/nodes says; pools, inference load and a reclaim.
  await page.click('a[data-view="gpus"]');
  await page.waitForSelector('#gpu-use');
  const nodes = (await api('GET', '/v1/nodes', alice)).json.nodes;
  const expected = { labels: [], used: [], load: [] };
  for (const n of nodes) {
    for (const g of n.gpu_detail) {
      expected.labels.push(`${n.name}:${g.gpu}`);
      expected.used.push(Math.round((1 - g.free_milli / 1000) * 100));
      expected.load.push(g.inference_load === undefined || g.inference_load === null ? null : Math.round(g.inference_load * 100));
    }
  }
  const gpuChart = await until('the GPU chart to match /v1/nodes', async () => {
    const d = await chartData(page, 'gpu-use');
    return d && JSON.stringify(d.datasets[0].data) === JSON.stringify(expected.used) ? d : null;
  });
  assert.deepEqual(gpuChart.labels, ['own-0:0', 'own-0:1', 'spot-0:0', 'inf-0:0']);
  assert.deepEqual(gpuChart.datasets[0].data, [100, 100, 0, 0]);
  assert.deepEqual(gpuChart.datasets[1].data, expected.load);
  assert.equal(gpuChart.datasets[1].data[3], 35, 'the inference load posted as telemetry');
  assert.deepEqual(gpuChart.datasets[2].data, nodes.flatMap((n) => n.gpu_detail.map((g) => (g.utilization === undefined ? null : Math.round(g.utilization * 100)))));
  assert.deepEqual(gpuChart.datasets[2].data.slice(0, 2), [1, 1], 'own-0\'s latest utilization telemetry');
  assert.match(await page.textContent('#nodes tr[data-node="own-0"][data-gpu="0"] td.util'), /1%/);
  const reclaim = await api('POST', '/v1/nodes/spot-0/reclaim', admin, { warning_s: 600 });
  assert.equal(reclaim.status, 200, JSON.stringify(reclaim.json));
  await until('the reclaim in the page', async () => (await page.textContent('#reclaims')).includes('spot-0 reclaimed'));
  assert.match(await page.textContent('#reclaims'), /reclaims since the daemon started: 1;/);
  await until('the reclaimed GPU taken in the chart', async () => (await chartData(page, 'gpu-use')).datasets[0].data[2] === 100);
  assert.match(await page.textContent('#nodes tr[data-node="spot-0"]'), /reclaimed: its provider takes it back/);
  await until('the reclaim in the history table', async () => (await page.locator('#reclaim-log tr[data-reclaim="spot-0"]').count()) === 1);
  assert.match(await page.textContent('#reclaim-log tr[data-reclaim="spot-0"]'), /not yet/);
  assert.equal((await api('POST', '/v1/nodes/spot-0/return', admin)).status, 200);
  await until('the return in the history table', async () => !(await page.textContent('#reclaim-log tr[data-reclaim="spot-0"]')).includes('not yet'));
  const pools = await page.$$eval('#pools tbody tr', (rs) => rs.map((r) => [r.dataset.pool, r.children[1].textContent]));
  assert.deepEqual(pools, [['owned', 'owned'], ['spot', 'spot'], ['inference', 'colocated']]);
  assert.match(await page.textContent('#pools'), /training cap 50%/);
  assert.match(await page.textContent('#nodes tr[data-node="own-0"]'), new RegExp(`${blocker} blocker \\(${adminName}\\)`));
  assert.match(await page.textContent('#nodes tr[data-node="inf-0"]'), /35%/);
  await page.screenshot({ path: join(shots, 'gpus.png'), fullPage: true });

  // --- history: charts of what the API says.
  await page.click('a[data-view="history"]');
  const history = await api('GET', '/v1/history?since=7d&step=1h', alice);
  const east = -new Date().getTimezoneOffset(); // Kolkata: 330, windows 6 hours east of UTC
  const idle = await api('GET', `/v1/idle-windows?since=28d&east=${east}`, alice);
  const idleUtc = await api('GET', '/v1/idle-windows?since=28d', alice);
  const cost = await api('GET', '/v1/cost?since=30d', alice);
  assert.equal(history.status, 200);
  assert.equal(idle.status, 200);
  assert.equal(cost.status, 200);
  // The page read the history a moment apart from this call: the current hour (the last
  // point) may have changed since (the idle reports go on), the ones before it may not.
  const closed = (xs) => xs.slice(0, -1);
  const d = await until('the wait chart', () => chartData(page, 'h-wait'));
  assert.equal(d.datasets[0].data.length, history.json.points.length);
  assert.deepEqual(closed(d.datasets[0].data), closed(history.json.points.map((p) => p.mean_wait_s)));
  assert.deepEqual(closed(d.labels), closed(history.json.points.map((p) => time(p.time))), 'the axis in local time');
  const u = await chartData(page, 'h-util');
  assert.deepEqual(closed(u.datasets[0].data), closed(history.json.points.map((p) => p.utilization)));
  assert.ok(u.datasets[0].data.filter((v) => v !== null).length >= 24, 'a week of replayed utilization');
  await until('the heatmap', async () => (await page.locator('#heatmap td').count()) === 168);
  const shown = await page.$$eval('#heatmap td', (tds) => tds.map((td) => td.dataset.share ?? null));
  const mean = Array.from({ length: 168 }, (_, h) => {
    const v = idle.json.gpus.map((g) => g.idle_share[h]).filter((x) => x !== null);
    return v.length ? (v.reduce((a, b) => a + b, 0) / v.length).toFixed(3) : null;
  });
  assert.deepEqual(shown, localWeek(mean, -new Date().getTimezoneOffset()),
    'the heatmap cells: the mean idle share over the GPUs by hour of the local week');
  assert.ok(shown.some((v) => v === '1.000') && shown.some((v) => v === '0.000'), 'idle nights and busy days');
  assert.ok(idle.json.windows.length > 0, 'the replayed weekday nights are idle windows');
  for (const w of idle.json.windows) assert.ok((await page.textContent('#h-idle')).includes(w.text));
  // One clock on the page: the windows' texts in the local zone, not the API's UTC ones.
  assert.equal(idle.json.windows_zone, 'UTC+05:30, to the nearest hour');
  assert.match(await page.textContent('#h-idle'), /says them \(local time, UTC\+05:30, to the nearest hour\)/);
  assert.equal(idleUtc.json.windows_zone, 'UTC');
  assert.notDeepEqual(idle.json.windows.map((w) => w.text), idleUtc.json.windows.map((w) => w.text));
  for (const w of idleUtc.json.windows) assert.ok(!(await page.textContent('#h-idle')).includes(w.text), w.text);
  const c = await until('the cost chart', () => chartData(page, 'h-cost-chart'));
  assert.deepEqual(c.datasets[0].data, cost.json.pools.map((p) => p.cost));
  log(`history endpoints: history ${history.status}, idle-windows ${idle.status}, cost ${cost.status}`);
  await checkEndedList(t, printed.id, arrayId); // and its screenshot, history.png
  await printed.unroute();

  // --- simulation reports, read from local files: the figures hold the file's numbers.
  await page.click('a[data-view="report"]');
  const sim = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(env('SQUEEZE_SIM_JSON'), 'utf8')));
  await page.setInputFiles('#report-file', env('SQUEEZE_SIM_JSON'));
  const q = await until('the report chart', () => chartData(page, 'r-queue'));
  const pairs = sim.variants.flatMap((v) => v.results.map((r) => [`${v.name}/${r.policy}`, r.avg_queue_s, r.p95_queue_s]));
  assert.deepEqual(q.labels, pairs.map((p) => p[0]));
  assert.deepEqual(q.datasets[0].data, pairs.map((p) => p[1]));
  assert.deepEqual(q.datasets[1].data, pairs.map((p) => p[2]));
  const urg = await chartData(page, 'r-v1-urgency');
  assert.deepEqual(urg.datasets.map((d) => d.label), sim.variants[1].results.map((r) => r.policy));
  assert.equal(urg.datasets[0].data[urg.labels.indexOf('high')], sim.variants[1].results[0].by_urgency.high.avg_queue_s);
  assert.equal(await page.locator('section[data-variant]').count(), sim.variants.length);
  await page.screenshot({ path: join(shots, 'report-simulate.png'), fullPage: true });
  const adv = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(env('SQUEEZE_ADVISE_JSON'), 'utf8')));
  await page.setInputFiles('#report-file', env('SQUEEZE_ADVISE_JSON'));
  const w = await until('the what-if chart', () => chartData(page, 'r-whatif-cost'));
  assert.deepEqual(w.labels, adv.what_ifs.map((x) => x.what_if));
  assert.deepEqual(w.datasets[0].data, adv.what_ifs.map((x) => x.cost_per_month));
  await page.screenshot({ path: join(shots, 'report-advise.png'), fullPage: true });

  // --- a token that stops working sends the page back to the prompt.
  await page.click('a[data-view="queue"]');
  await page.evaluate(() => sessionStorage.setItem('squeeze.token', 'revoked'));
  await page.waitForSelector('#token', { timeout: 8000 });
  assert.match(await page.textContent('#login-error'), /refused/);
}

// `squeeze dashboard`'s link: it logs alice in with no token typed, leaves the address bar,
// and works once.
async function loginLink(browser) {
  const link = env('SQUEEZE_LOGIN_URL');
  const page = await browser.newPage({ timezoneId: ZONE });
  await page.goto(link);
  await page.waitForSelector('#queue', { timeout: 10000 });
  const token = await page.evaluate(() => sessionStorage.getItem('squeeze.token'));
  assert.match(token ?? '', /^[0-9a-f]{64}$/, 'a session token from the link');
  const who = await api('GET', '/v1/whoami', token);
  assert.equal(who.json?.user, aliceName, 'the link logs in as who ran squeeze dashboard');
  assert.ok(!page.url().includes('login='), `the code stays in the address bar: ${page.url()}`);
  const again = await browser.newPage({ timezoneId: ZONE });
  await again.goto(link);
  await again.waitForSelector('#token');
  assert.match(await again.textContent('#login-error'), /did not work.*unknown, used or expired/);
  await page.close();
  await again.close();
  log('the login link logged alice in once');
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox'],
});
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
  page.on('dialog', async (d) => { log(`page dialog: ${d.message()}`); failed = true; await d.dismiss(); });
  const requests = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    requests.push({ origin: url.origin, path: url.pathname, auth: r.headers().authorization ?? null });
  });
  page.on('pageerror', (e) => { log(`page error: ${e.message}`); failed = true; });
  await loginLink(browser);
  await run(page, requests);
  // Nothing was fetched from anywhere but the daemon, and every data call had the token.
  const elsewhere = requests.filter((r) => r.origin !== new URL(base).origin);
  assert.deepEqual(elsewhere, [], 'requests outside the daemon');
  const data = requests.filter((r) => r.path.startsWith('/v1/'));
  assert.ok(data.length > 10, `only ${data.length} API calls`);
  const bare = data.filter((r) => !r.auth || !r.auth.startsWith('Bearer '));
  assert.deepEqual(bare, [], 'API calls without a bearer token');
  assert.ok(!failed, 'the page threw an error (see above)');
  log(`PASS: ${requests.length} requests, ${data.length} API calls, screenshots in ${shots}`);
} catch (e) {
  console.error(`FAIL: ${e.stack || e}`);
  failed = true;
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
