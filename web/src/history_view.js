// The history: the ended jobs (ended_view.js), queueing delay and utilization over time (GET
// /v1/history), the idle-window heatmap by hour of the week in local time (GET
// /v1/idle-windows) and the cost per pool (GET /v1/cost). A daemon without one of these
// endpoints (404) gets "not available" in its place.
import { get } from './api.js';
import { canvasIn, draw } from './charts.js';
import { endedJobs } from './ended_view.js';
import { esc, localWeek, number, percent, time, zoneText } from './format.js';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const NOT_AVAILABLE = '<p class="na">not available: this squeeze serve has no such endpoint yet</p>';

function timeSeries(root, h) {
  const box = root.querySelector('#h-series');
  if (!h) {
    box.innerHTML = `<h2>Queueing delay and utilization</h2>${NOT_AVAILABLE}`;
    return;
  }
  if (!box.querySelector('.charts')) box.innerHTML = '<div class="charts"></div>';
  const grid = box.querySelector('.charts');
  const labels = h.points.map((p) => time(p.time));
  draw(canvasIn(grid, 'h-wait', `Mean wait before a start (s), ${time(h.from)} to ${time(h.to)}`), {
    type: 'line',
    data: { labels, datasets: [{ label: 'mean wait (s)', data: h.points.map((p) => p.mean_wait_s), borderColor: '#9a6700', spanGaps: false }] },
  });
  draw(canvasIn(grid, 'h-util', 'Utilization (%) and GPUs running jobs'), {
    type: 'line',
    data: { labels, datasets: [
      { label: 'utilization %', data: h.points.map((p) => p.utilization), borderColor: '#1a7f37', yAxisID: 'y' },
      { label: 'GPUs busy', data: h.points.map((p) => p.gpus_busy), borderColor: '#6aa6ff', yAxisID: 'y1' },
    ] },
    options: { scales: { y: { min: 0, max: 100, position: 'left' }, y1: { min: 0, position: 'right' } } },
  });
  draw(canvasIn(grid, 'h-starts', 'Jobs started'), {
    type: 'bar',
    data: { labels, datasets: [{ label: 'jobs started', data: h.points.map((p) => p.jobs_started), backgroundColor: '#6aa6ff' }] },
  });
}

// The mean idle share over the GPUs for each hour of the week (null where none reported).
export function meanIdleShare(gpus) {
  return Array.from({ length: 168 }, (_, hour) => {
    const v = gpus.map((g) => g.idle_share[hour]).filter((x) => x !== null && x !== undefined);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  });
}

// The mean idle share by hour of the week, moved from the API's UTC week to the local one.
function heatmap(root, w) {
  const box = root.querySelector('#h-idle');
  if (!w) {
    box.innerHTML = `<h2>Idle windows</h2>${NOT_AVAILABLE}`;
    return;
  }
  const east = -new Date().getTimezoneOffset();
  const share = localWeek(meanIdleShare(w.gpus), east);
  const cell = (v) => (v === null ? '<td class="na" title="no data"></td>'
    : `<td data-share="${v.toFixed(3)}" title="${percent(v)} idle" style="background:rgba(26,127,55,${v.toFixed(2)})"></td>`);
  const rows = DAYS.map((d, day) => `<tr><th>${d}</th>${share.slice(day * 24, day * 24 + 24).map(cell).join('')}</tr>`);
  const zone = `local time, ${zoneText(east)}${east % 60 ? ', to the nearest hour' : ''}`;
  box.innerHTML = `<h2>Idle windows: share of GPU time below ${percent(w.threshold)} by hour of the week (${zone}), ${w.gpus.length} GPUs, ${esc(time(w.from))} to ${esc(time(w.to))}</h2>
    <table class="heatmap" id="heatmap"><thead><tr><th></th>${Array.from({ length: 24 }, (_, i) => `<th>${i}</th>`).join('')}</tr></thead>
    <tbody>${rows.join('')}</tbody></table>
    <p class="why">The recurring windows, as <code>squeeze idle-report</code> says them (local time, ${esc(w.windows_zone ?? 'UTC')}):</p>
    <ul>${w.windows.map((x) => `<li>${esc(x.text)}</li>`).join('') || '<li class="na">no recurring window</li>'}</ul>`;
}

function cost(root, c) {
  const box = root.querySelector('#h-cost');
  if (!c) {
    box.innerHTML = `<h2>Cost per pool</h2>${NOT_AVAILABLE}`;
    return;
  }
  if (!box.querySelector('table')) {
    box.innerHTML = '<h2>Cost per pool</h2><table id="cost"><thead><tr><th>Pool</th><th>Kind</th><th class="num">Price / GPU-hour</th><th class="num">GPU-hours</th><th class="num">Cost</th></tr></thead><tbody></tbody></table>';
  }
  box.querySelector('tbody').innerHTML = c.pools.map((p) => `<tr><td>${esc(p.pool)}</td><td>${esc(p.kind)}</td>
    <td class="num">${number(p.price_per_gpu_hour, 2)}</td><td class="num">${number(p.gpu_hours, 1)}</td>
    <td class="num">${number(p.cost, 2)}</td></tr>`).join('') +
    `<tr><th colspan="4">total</th><th class="num">${number(c.total_cost, 2)}</th></tr>`;
  draw(canvasIn(box, 'h-cost-chart', `Cost per pool, ${time(c.from)} to ${time(c.to)}`), {
    type: 'bar',
    data: { labels: c.pools.map((p) => p.pool), datasets: [{ label: 'cost', data: c.pools.map((p) => p.cost), backgroundColor: '#f0883e' }] },
  });
}

export function historyView() {
  let root;
  const ended = endedJobs();
  function mount(el) {
    root = el;
    root.innerHTML = `<section id="h-ended"></section><section id="h-series"></section>
      <section id="h-idle"></section><section id="h-cost"></section>`;
    ended.mount(root.querySelector('#h-ended'));
  }
  async function refresh() {
    const [h, w, c] = await Promise.all([
      get('/v1/history?since=7d&step=1h', { optional: true }),
      get(`/v1/idle-windows?since=28d&east=${-new Date().getTimezoneOffset()}`, { optional: true }),
      get('/v1/cost?since=30d', { optional: true }),
      ended.refresh(),
    ]);
    timeSeries(root, h);
    heatmap(root, w);
    cost(root, c);
  }
  return { mount, refresh, pollEveryMs: 10000 };
}
