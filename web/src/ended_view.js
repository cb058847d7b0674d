// The ended jobs, under the History tab: the 100 that ended last of those done, failed,
// cancelled or timed out (one page: GET /v1/jobs?state=...&order=ended&limit=100, the latest
// end first), as sacct lists them, each linking to its page. Text only (dom.js).
import { get } from './api.js';
import { h, jobLink } from './dom.js';
import { ENDED, endedCells } from './jobs.js';

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
  let parts;

  function mount(box) {
    parts = { count: h('span', { class: 'why', id: 'ended-count' }), body: h('tbody') };
    box.replaceChildren(h('h2', {}, 'Ended jobs ', parts.count), h('div', { class: 'scroll' },
      h('table', { id: 'ended' }, h('thead', {}, h('tr', {}, HEAD.map(([t, c]) => h('th', { class: c }, t)))),
        parts.body)));
  }

  async function refresh() {
    const { jobs } = await get(`/v1/jobs?state=${ENDED.join(',')}&order=ended&limit=${LIMIT}`);
    parts.count.textContent = jobs.length < LIMIT ? `${jobs.length} in all, the latest end first`
      : `the ${LIMIT} that ended last, the latest end first`;
    parts.body.replaceChildren(...(jobs.length ? jobs.map(row)
      : [h('tr', {}, h('td', { colspan: HEAD.length, class: 'na' }, 'no job has ended yet'))]));
  }

  return { mount, refresh };
}
