// The ended jobs, under the History tab: the most recent 100 of those done, failed, cancelled
// or timed out (GET /v1/jobs?state=done,failed,cancelled,timeout, every page, read once:
// jobs.js endedStep), as sacct lists them, each linking to its page. Text only (dom.js).
import { allJobs, get } from './api.js';
import { h, jobLink } from './dom.js';
import { ENDED, endedCells, endedStep } from './jobs.js';

const LIMIT = 100;
const HEAD = [['ID', 'num'], ['Name'], ['Owner'], ['State'], ['Wait', 'num'], ['Run time', 'num'],
  ['GPU-hours', 'num'], ['Exit', 'num'], ['End']];

function row(j) {
  return h('tr', { dataset: { id: j.id, state: j.state } }, endedCells(j).map(([k, text], i) => {
    const cell = h('td', { class: k === 'state' ? `state-${j.state}` : HEAD[i][1], dataset: { col: k } });
    cell.append(k === 'id' || k === 'name' ? jobLink(j.id, text) : text);
    return cell;
  }));
}

export function endedJobs() {
  let kept = { jobs: [], count: 0, after: 0 };
  let parts;

  function mount(box) {
    parts = { count: h('span', { class: 'why', id: 'ended-count' }), body: h('tbody') };
    box.replaceChildren(h('h2', {}, 'Ended jobs ', parts.count), h('div', { class: 'scroll' },
      h('table', { id: 'ended' }, h('thead', {}, h('tr', {}, HEAD.map(([t, c]) => h('th', { class: c }, t)))),
        parts.body)));
  }

  async function refresh() {
    // Below the lowest id waiting or running, every job has ended for good (ids only grow).
    const active = await get('/v1/jobs?state=pending,running,checkpointing&limit=1');
    const lowest = active.jobs.length ? active.jobs[0].id : Infinity;
    const fresh = await allJobs(`state=${ENDED.join(',')}`, kept.after || null);
    const step = endedStep(kept, lowest, fresh, LIMIT);
    kept = step.kept;
    parts.count.textContent = `the ${step.shown.length} most recent of ${step.total}, the latest end first`;
    parts.body.replaceChildren(...(step.shown.length ? step.shown.map(row)
      : [h('tr', {}, h('td', { colspan: HEAD.length, class: 'na' }, 'no job has ended yet'))]));
  }

  return { mount, refresh };
}
