// A job's page (#job/ID, from the queue or the ended jobs): its fields grouped as `scontrol
// show job` groups them, what happened to it (GET /v1/jobs/ID's history) and the tail of its
// log (GET /v1/jobs/ID/log), refreshed while it waits or runs. Everything is put in as text.
import { get, Unauthorized } from './api.js';
import { h } from './dom.js';
import { localText, time } from './format.js';
import { ENDED, idText, jobSections } from './jobs.js';

const LOG_BYTES = 65536;
const POLL_MS = 2000;

// The log's tail, or {message} where there is none to show: someone else's job (403), one
// that has not run yet (409) or any other refusal, said as the API says it.
async function readLog(id) {
  try {
    return await get(`/v1/jobs/${encodeURIComponent(id)}/log?tail_bytes=${LOG_BYTES}`);
  } catch (e) {
    if (e instanceof Unauthorized) throw e;
    return { message: e.message, status: e.status };
  }
}

function fieldsOf(job) {
  return jobSections(job).map(({ title, rows }) => h('div', { class: 'job-group' }, h('h3', {}, title),
    h('table', { class: 'kv' }, h('tbody', {}, rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))))));
}

function historyRows(job) {
  const events = job.history ?? [];
  if (!events.length) return [h('tr', {}, h('td', { colspan: 3, class: 'na' }, 'no event'))];
  return events.map((e) => h('tr', { dataset: { kind: e.kind } }, h('td', { class: 'when' }, time(e.at)),
    h('td', {}, e.kind), h('td', {}, localText(e.text))));
}

function logNote(log, job) {
  if (log.message !== undefined) return log.message;
  const part = log.truncated ? `the last ${LOG_BYTES / 1024} KiB of ${log.size} bytes` : `${log.size} bytes`;
  const live = ENDED.includes(job.state) ? '' : ', refreshed while it runs';
  return `${log.all_runs ? 'every run' : `run ${log.attempt}`}: ${part}${log.path ? ` of ${log.path}` : ''}${live}`;
}

export function jobView() {
  const state = { id: null, ended: false };
  let root;
  let parts;

  function route(id) {
    state.id = id;
    state.ended = false;
    parts = {
      title: h('h2', {}, `Job ${id}`), line: h('p', { class: 'why', id: 'job-line' }, 'loading…'),
      fields: h('div', { class: 'job-fields' }), history: h('tbody'), note: h('p', { class: 'why', id: 'job-log-note' }),
      log: h('pre', { id: 'job-log', class: 'log' }),
    };
    root.replaceChildren(
      h('section', { id: 'job-head' }, parts.title, parts.line, parts.fields),
      h('section', {}, h('h2', {}, 'What happened'), h('table', { id: 'job-history' },
        h('thead', {}, h('tr', {}, h('th', {}, 'At'), h('th', {}, 'Event'), h('th', {}, 'What'))), parts.history)),
      h('section', {}, h('h2', {}, 'Log'), parts.note, parts.log));
  }

  function showLog(log, job) {
    parts.note.textContent = logNote(log, job);
    parts.note.classList.toggle('na', log.message !== undefined);
    parts.log.hidden = log.message !== undefined;
    const text = log.text ?? '';
    if (parts.log.textContent === text) return;
    const atEnd = parts.log.scrollTop + parts.log.clientHeight >= parts.log.scrollHeight - 4;
    parts.log.textContent = text;
    if (atEnd) parts.log.scrollTop = parts.log.scrollHeight;
  }

  function render(job, log) {
    parts.title.textContent = `Job ${idText(job)}${job.array_id ? ` (id ${job.id})` : ''}: ${job.name}`;
    parts.title.dataset.state = job.state;
    parts.line.textContent = `${job.state}${job.reason ? `: ${localText(job.reason)}` : ''}`;
    parts.line.className = `state-${job.state}`;
    parts.fields.replaceChildren(...fieldsOf(job));
    parts.history.replaceChildren(...historyRows(job));
    showLog(log, job);
  }

  async function refresh() {
    const id = state.id;
    if (!id) return;
    const job = await get(`/v1/jobs/${encodeURIComponent(id)}`, { optional: true })
      .catch((e) => { if (e instanceof Unauthorized) throw e; return { error: e.message }; });
    const log = job && !job.error ? await readLog(id) : null;
    if (id !== state.id) return; // another job was opened meanwhile
    if (!job || job.error) {
      parts.line.textContent = job ? job.error : `no job ${id}`;
      state.ended = true;
      return;
    }
    state.ended = ENDED.includes(job.state);
    render(job, log);
  }

  return {
    mount: (el) => { root = el; },
    route,
    refresh,
    get pollEveryMs() { return state.ended ? 0 : POLL_MS; },
  };
}
