// The queue: every job with its owner, urgency, GPUs, state, wait, run time, why it waits and
// when it is expected to start, its id and name linking to its page (#job/ID); filter, sort by any column, cancel a job, hold a waiting one and release
// it (offered on the caller's own jobs, or on every job for an admin: what the API allows).
// Jobs held but idle are flagged.
// Job arrays: a task shows as ARRAY_TASK (12_4), and each array among the jobs listed has a
// progress line (its tasks by state, from GET /v1/jobs/ARRAY).
import { allJobs, call, get } from './api.js';
import { duration, esc, localText, time } from './format.js';
import { gpusText, idText, runText } from './jobs.js';

const ACTIVE = 'pending,running,checkpointing';
const URGENCY_RANK = { critical: 0, high: 1, normal: 2, low: 3 };
const WHY_LIMIT = 30; // pending jobs whose `why` is asked for on each refresh
const ARRAY_LIMIT = 10; // arrays whose progress is asked for on each refresh

const COLUMNS = [
  ['id', 'ID', (j) => j.id],
  ['name', 'Name', (j) => j.name],
  ['owner', 'Owner', (j) => `${j.owner}/${j.team}`],
  ['urgency', 'Urgency', (j) => URGENCY_RANK[j.urgency] ?? 9],
  ['gpus', 'GPUs', (j) => (j.gpus_range && j.run_gpus?.length ? j.run_gpus.length : j.gpus) * j.gpu_milli],
  ['state', 'State', (j) => j.state],
  ['wait', 'Wait', (j) => j.wait_s ?? -1],
  ['run', 'Run time', (j) => j.run_s ?? -1],
  ['start', 'Expected start', (j) => j.why?.expected_start_in_s ?? Infinity],
];

const header = ([k, label]) => `<th data-sort="${k}"${['wait', 'run'].includes(k) ? ' class="num"' : ''}>${label}</th>`;

export function queueView() {
  const state = { sort: 'id', dir: 1, jobs: [], why: new Map(), message: '', me: null, idle: new Map(), arrays: [] };
  let root;

  function whyCell(j) {
    if (j.state !== 'pending') return esc(localText(j.reason));
    const why = j.why;
    const lines = why ? why.explanation : [];
    const code = j.reason_code ? `<div class="reason-code">${esc(j.reason_code)}</div>` : '';
    return `${code}${j.reason ? `<div>${esc(localText(j.reason))}</div>` : ''}<div class="why">${lines.map((l) => esc(localText(l))).join('<br>')}</div>`;
  }

  function startCell(j) {
    if (j.state !== 'pending') return j.started_at ? `started ${esc(time(j.started_at))}` : '';
    const why = j.why;
    if (!why || why.expected_start_in_s === null || why.expected_start_in_s === undefined) return '';
    return `in ${esc(duration(why.expected_start_in_s))}<div class="why">${esc(time(why.expected_start_at))}</div>`;
  }

  function arraysHtml() {
    return state.arrays.map(({ id, name, p }) => {
      const by = Object.entries(p.by_state).map(([s, n]) => `${esc(s)} ${esc(n)}`).join(', ');
      const limit = p.limit ? `, at most ${esc(p.limit)} at once` : '';
      return `<div class="array-progress" data-array="${id}">array ${id} ${esc(name)} (${esc(p.array)}):
        <progress value="${p.ended}" max="${p.tasks}"></progress>
        <span class="array-ended">${esc(p.ended)} of ${esc(p.tasks)} tasks ended</span>
        <span class="why">${by}${limit}</span></div>`;
    }).join('');
  }

  // Hold (scontrol hold) a waiting job, release a held one (its REASON is JobHeld), cancel any.
  function controls(j) {
    const held = j.state === 'pending' && j.reason_code === 'JobHeld';
    const toggle = j.state !== 'pending' ? ''
      : `<button type="button" data-act="${held ? 'release' : 'hold'}" data-job="${j.id}">${held ? 'Release' : 'Hold'}</button> `;
    return `${toggle}<button type="button" data-cancel="${j.id}">Cancel</button>`;
  }

  function visible() {
    const owner = root.querySelector('#f-owner').value.trim().toLowerCase();
    const text = root.querySelector('#f-text').value.trim().toLowerCase();
    const urgency = root.querySelector('#f-urgency').value;
    const key = COLUMNS.find((c) => c[0] === state.sort)[2];
    return state.jobs
      .filter((j) => !owner || j.owner.toLowerCase().includes(owner) || j.team.toLowerCase().includes(owner))
      .filter((j) => !urgency || j.urgency === urgency)
      .filter((j) => !text || `${j.id} ${j.name} ${(j.command || []).join(' ')} ${j.reason}`.toLowerCase().includes(text))
      .sort((a, b) => {
        const x = key(a); const y = key(b);
        return (x < y ? -1 : x > y ? 1 : a.id - b.id) * state.dir;
      });
  }

  function render() {
    const rows = visible().map((j) => {
      const active = ['pending', 'running', 'checkpointing'].includes(j.state);
      const cancellable = active && state.me && (state.me.admin || state.me.user === j.owner);
      const idle = state.idle.get(j.id);
      const flag = idle && j.state === 'running'
        ? `<div class="held-idle" title="its GPUs stayed below the held-idle threshold">held but idle: ${
          esc(Math.round(idle.mean_utilization * 100))}% since ${esc(time(idle.idle_since))}</div>` : '';
      return `<tr data-id="${j.id}" data-state="${esc(j.state)}">
        <td class="num"><a href="#job/${esc(j.id)}">${esc(idText(j))}</a></td><td><a href="#job/${esc(j.id)}">${esc(j.name)}</a></td><td>${esc(j.owner)}<div class="why">${esc(j.team)}</div></td>
        <td>${esc(j.urgency)}</td><td class="num">${esc(gpusText(j))}</td>
        <td class="state-${esc(j.state)}">${esc(j.state)}${flag}</td><td class="num">${esc(duration(j.wait_s))}</td>
        <td class="num">${esc(runText(j))}</td>
        <td>${whyCell(j)}</td><td>${startCell(j)}</td>
        <td>${cancellable ? controls(j) : ''}</td></tr>`;
    });
    const html = rows.join('') || '<tr><td colspan="11" class="na">no jobs</td></tr>';
    // Unchanged rows are left alone, so a click on a button is not lost to a refresh.
    if (html !== state.html) root.querySelector('tbody').innerHTML = html;
    state.html = html;
    root.querySelector('#q-count').textContent = `${rows.length} of ${state.jobs.length} jobs`;
    const arrays = arraysHtml();
    if (arrays !== state.arraysHtml) root.querySelector('#arrays').innerHTML = arrays;
    state.arraysHtml = arrays;
    root.querySelector('#q-message').textContent = state.message;
    for (const th of root.querySelectorAll('th[data-sort]')) {
      th.classList.toggle('sorted', th.dataset.sort === state.sort);
      th.dataset.dir = state.dir > 0 ? ' ▲' : ' ▼';
    }
  }

  // POST /v1/jobs/ID/cancel, /hold or /release, and what came of it in the message line.
  const DONE = { cancel: 'cancelled', hold: 'held', release: 'released' };
  async function act(id, verb) {
    try {
      const r = await call('POST', `/v1/jobs/${id}/${verb}`);
      state.message = `job ${id}: ${verb === 'cancel' ? r.state : DONE[verb]}`;
    } catch (e) {
      state.message = `job ${id} not ${DONE[verb]}: ${e.message}`;
    }
    await refresh();
  }

  async function refresh() {
    const which = root.querySelector('#f-state').value;
    if (!state.me) state.me = await get('/v1/whoami');
    const jobs = await allJobs(which === 'all' ? '' : `state=${which || ACTIVE}`);
    const idle = await get('/v1/held-idle');
    state.idle = new Map(idle.jobs.map((j) => [j.id, j]));
    const pending = jobs.filter((j) => j.state === 'pending').slice(0, WHY_LIMIT);
    const whys = await Promise.all(pending.map((j) => get(`/v1/jobs/${j.id}/why`).catch(() => null)));
    pending.forEach((j, i) => { j.why = whys[i]; });
    const arrayIds = [...new Set(jobs.filter((j) => j.array_id).map((j) => j.array_id))].slice(0, ARRAY_LIMIT);
    const heads = await Promise.all(arrayIds.map((a) => get(`/v1/jobs/${a}`).catch(() => null)));
    state.arrays = heads.filter((h) => h && h.array_progress)
      .map((h) => ({ id: h.array_progress.array_id, name: h.name, p: h.array_progress }));
    state.jobs = jobs;
    render();
  }

  function mount(el) {
    root = el;
    root.innerHTML = `<section><h2>Queue <span id="q-count" class="why"></span></h2>
      <div class="filters">
        <label>State <select id="f-state">
          <option value="">waiting and running</option><option value="pending">pending</option>
          <option value="running,checkpointing">running</option><option value="done">done</option>
          <option value="failed">failed</option><option value="cancelled">cancelled</option>
          <option value="timeout">timeout</option>
          <option value="all">all</option></select></label>
        <label>Urgency <select id="f-urgency"><option value="">any</option>
          <option>critical</option><option>high</option><option>normal</option><option>low</option></select></label>
        <label>Owner or team <input id="f-owner" size="12"></label>
        <label>Search <input id="f-text" size="16"></label>
      </div>
      <div id="q-message" class="error"></div>
      <div id="arrays"></div>
      <table id="queue"><thead><tr>${COLUMNS.slice(0, -1).map(header).join('')}
        <th>Why it waits</th>${header(COLUMNS.at(-1))}<th></th></tr></thead><tbody></tbody></table></section>`;
    root.querySelector('#f-state').addEventListener('change', () => refresh().catch(() => {}));
    for (const id of ['#f-owner', '#f-text', '#f-urgency']) {
      root.querySelector(id).addEventListener('input', render);
    }
    root.querySelector('thead').addEventListener('click', (e) => {
      const key = e.target.dataset?.sort;
      if (!key) return;
      state.dir = state.sort === key ? -state.dir : 1;
      state.sort = key;
      render();
    });
    root.querySelector('tbody').addEventListener('click', (e) => {
      const { cancel: id, act: verb, job } = e.target.dataset ?? {};
      if (id) act(Number(id), 'cancel');
      else if (verb) act(Number(job), verb);
    });
  }

  return { mount, refresh };
}
