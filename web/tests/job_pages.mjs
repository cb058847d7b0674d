// The browser test's checks of the job pages and the ended-jobs list (tests/dashboard.test.mjs
// runs them, with its `t`: {page, api, until, log, alice, aliceName, blocker, shots}). The page
// runs in UTC+05:30 (ZONE), so a time shown in UTC, or in two ways, fails.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { time } from '../src/format.js';
import { endedCells, runText } from '../src/jobs.js';

export const ZONE = 'Asia/Kolkata';
export const HOSTILE = '<img src=x onerror=alert(1)>';
const ENDED_QUERY = '/v1/jobs?state=done,failed,cancelled,timeout&limit=1000';

const title = (page) => page.textContent('#job-head h2');
const note = (page) => page.textContent('#job-log-note');
const fields = (page) => page.$$eval('#job-head table.kv tr', (rs) =>
  Object.fromEntries(rs.map((r) => [r.children[0].textContent, r.children[1].textContent])));

// The daemon refuses a name with HTML in it; a hostile answer is made here instead, in the
// page's own GET /v1/jobs... answers, to see that the page shows it as text.
export async function renameJob(page, id, name) {
  const match = (url) => url.pathname.startsWith('/v1/jobs');
  await page.route(match, async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const response = await route.fetch();
    const json = await response.json().catch(() => null);
    if (!json) return route.fulfill({ response });
    for (const j of json.jobs ?? [json]) if (j.id === id && 'name' in j) j.name = name;
    return route.fulfill({ response, json });
  });
  return () => page.unroute(match);
}

// The RUN TIME column: the running blocker's time so far, none for a job that never ran, and
// the blocker's start in local time.
export async function checkRunTime(t, waiting) {
  const { page, api, alice, blocker } = t;
  const head = await page.$$eval('#queue thead th', (ths) => ths.map((th) => th.textContent));
  assert.equal(head[7], 'Run time', String(head));
  const cells = (id) => page.locator(`#queue tr[data-id="${id}"] td`);
  assert.match(await cells(blocker).nth(7).textContent(), /^\d+(s|m\d\ds)$/, 'the blocker\'s run time');
  assert.equal(await cells(waiting).nth(7).textContent(), '', 'a job that never ran');
  const b = (await api('GET', `/v1/jobs/${blocker}`, alice)).json;
  assert.equal(await cells(blocker).nth(9).textContent(), `started ${time(b.started_at)}`);
}

// A job that never ran (409: the message, not an error), someone else's ((private), 403) and
// none.
export async function checkOtherJobPages(t, waiting) {
  const { page, until, blocker } = t;
  await page.click(`#queue tr[data-id="${waiting}"] td:nth-child(2) a`);
  await until('the page of the job that never ran', async () =>
    (await title(page)).includes('browser-wait') && (await note(page)).includes(`job ${waiting} has not run yet`));
  assert.equal(await page.locator('#job-log').isVisible(), false);
  assert.equal(await page.textContent('#job-history tbody tr:first-child td:nth-child(2)'), 'submit');
  await page.goto(`${t.base}/ui/#job/${blocker}`);
  await until('the page of the admin\'s job', async () =>
    (await note(page)).includes('only its owner or an admin may read it'));
  const f = await fields(page);
  for (const k of ['Command', 'Workdir', 'Environment']) assert.equal(f[k], '(private)', `${k}: ${f[k]}`);
  assert.equal(f.State, 'running');
  await page.goto(`${t.base}/ui/#job/999999`);
  await until('the page of no job', async () => (await page.textContent('#job-line')) === 'no job 999999');
}

// Alice's job that prints (HTML among it): opened from the queue, its log grows while it runs,
// then its history, fields and whole log once done; a reload keeps the page.
export async function checkJobPage(t) {
  const { page, api, until, alice, log } = t;
  const body = { name: 'browser-log', gpus: 1, pool: 'spot', workdir: '/tmp',
    command: ['sh', '-c', `echo '${HOSTILE}'; echo browser-step-1; sleep 6; echo browser-step-2`] };
  const r = await api('POST', '/v1/jobs', alice, body);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const id = r.json.id;
  log(`alice submitted job ${id}, which prints`);
  const unroute = await renameJob(page, id, HOSTILE);
  await page.click('a[data-view="queue"]');
  await page.selectOption('#f-state', '');
  await until(`job ${id} in the queue`, async () => (await page.locator(`#queue tr[data-id="${id}"]`).count()) === 1);
  assert.equal(await page.textContent(`#queue tr[data-id="${id}"] td:nth-child(2)`), HOSTILE);
  await page.click(`#queue tr[data-id="${id}"] td:first-child a`);
  assert.match(page.url(), new RegExp(`#job/${id}$`));
  const running = await until('its first line while it runs', async () => {
    const text = await page.textContent('#job-log');
    return text.includes('browser-step-1') && !text.includes('browser-step-2')
      && (await page.getAttribute('#job-head h2', 'data-state')) === 'running';
  }, 30000);
  assert.ok(running);
  await until('its last line and its end, by itself', async () =>
    (await page.textContent('#job-log')).includes('browser-step-2')
    && (await page.getAttribute('#job-head h2', 'data-state')) === 'done', 30000);
  await page.reload();
  await until('the job page after a reload', async () =>
    (await page.locator('#job-log').count()) === 1 && (await page.textContent('#job-log')).includes('browser-step-2'));
  await checkDoneJob(t, id);
  await page.screenshot({ path: join(t.shots, 'job.png'), fullPage: true });
  return { id, unroute };
}

async function checkDoneJob(t, id) {
  const { page, api, alice } = t;
  const job = (await api('GET', `/v1/jobs/${id}`, alice)).json;
  assert.equal(await title(page), `Job ${id}: ${HOSTILE}`, 'the name, as text');
  assert.ok((await page.textContent('#job-log')).includes(HOSTILE), 'what it printed, as text');
  assert.equal(await page.locator('img').count(), 0, 'no element made of a name or a log');
  const f = await fields(page);
  assert.equal(f.Submitted, time(job.submitted_at));
  assert.equal(f.Ended, time(job.ended_at));
  assert.equal(f['Run time'], runText(job));
  assert.equal(f['Exit code'], '0');
  assert.equal(f['Run nodes'], 'spot-0');
  assert.match(f.Environment, /^\d+ variables? \(values: squeeze show/);
  const events = await page.$$eval('#job-history tbody tr', (rs) => rs.map((r) => r.dataset.kind));
  assert.deepEqual(events, job.history.map((e) => e.kind));
  assert.ok(events.includes('start') && events.includes('submit'), String(events));
  assert.equal(await page.textContent('#job-history tbody tr:first-child td.when'), time(job.history[0].at));
}

// The History tab's ended jobs: what the API has ended, latest first, as sacct lists them.
export async function checkEndedList(t, logJob, arrayId) {
  const { page, api, until, alice } = t;
  // Every ended job (read by id, fewer than 100 here), and the page's list: the same jobs, the
  // latest end first (the API's ISO times sort as text; the store orders by the millisecond).
  const every = (await api('GET', ENDED_QUERY, alice)).json.jobs;
  const ended = (await api('GET', `${ENDED_QUERY}&order=ended`, alice)).json.jobs;
  assert.ok(every.length < 100 && every.length > 5, `${every.length} ended jobs`);
  assert.deepEqual(ended.map((j) => j.id).sort((a, b) => a - b), every.map((j) => j.id));
  for (let i = 1; i < ended.length; i += 1) {
    assert.ok(ended[i - 1].ended_at >= ended[i].ended_at, `${ended[i - 1].id} ended before ${ended[i].id}`);
  }
  assert.equal(ended[0].id, logJob, 'the job that ended last comes first');
  const ids = () => page.$$eval('#ended tbody tr', (rs) => rs.map((r) => Number(r.dataset.id)));
  await until('the ended jobs', async () => JSON.stringify(await ids()) === JSON.stringify(ended.map((j) => j.id)));
  const cells = await page.$$eval(`#ended tr[data-id="${logJob}"] td`, (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(cells, endedCells({ ...ended[0], name: HOSTILE }).map(([, text]) => text));
  assert.equal(await page.textContent(`#ended tr[data-id="${arrayId + 5}"] td`), `${arrayId}_5`);
  assert.equal(await page.locator('img').count(), 0);
  await page.screenshot({ path: join(t.shots, 'history.png'), fullPage: true });
  await page.click(`#ended tr[data-id="${logJob}"] td[data-col="name"] a`);
  await until('the job page from the ended list', async () => (await title(page)) === `Job ${logJob}: ${HOSTILE}`);
}
