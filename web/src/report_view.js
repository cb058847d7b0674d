// Simulation reports: a JSON file written by `squeeze simulate --json` (one run or a
// --scenario) or `squeeze advise --json`, read in the browser (nothing is uploaded), drawn as
// the per-variant figures.
import { canvasIn, draw } from './charts.js';
import { duration, esc, number, percent } from './format.js';

const URGENCIES = ['critical', 'high', 'normal', 'low'];

// The variants of a simulate report: a scenario's, or the one cluster of a plain run.
export function variantsOf(doc) {
  if (Array.isArray(doc.variants)) return doc.variants;
  return [{ name: doc.cluster || 'run', cluster: doc.cluster, gpus: null, results: doc.results }];
}

function resultsTable(v) {
  return `<table><thead><tr><th>Policy</th><th class="num">Jobs</th><th class="num">Mean wait</th><th class="num">p95 wait</th>
    <th class="num">Mean JCT</th><th class="num">Utilization</th><th class="num">Preemptions</th><th class="num">Cost</th></tr></thead><tbody>
    ${v.results.map((r) => `<tr><td>${esc(r.policy)}</td><td class="num">${r.jobs}</td><td class="num">${duration(r.avg_queue_s)}</td>
      <td class="num">${duration(r.p95_queue_s)}</td><td class="num">${duration(r.avg_jct_s)}</td>
      <td class="num">${percent(r.gpu_utilization, 1)}</td><td class="num">${r.preemptions}</td><td class="num">${number(r.cost, 2)}</td></tr>`).join('')}
    </tbody></table>`;
}

function drawSimulate(box, doc) {
  const variants = variantsOf(doc);
  const pairs = variants.flatMap((v) => v.results.map((r) => ({ v, r, label: `${v.name}/${r.policy}` })));
  box.innerHTML = `<section><h2>${esc(doc.scenario ? `Scenario ${doc.scenario}` : 'Simulation')}: ${esc(doc.trace)}</h2>
    <div class="charts" id="r-summary"></div></section>`;
  const summary = box.querySelector('#r-summary');
  draw(canvasIn(summary, 'r-queue', 'Mean and p95 queueing delay (s)'), {
    type: 'bar',
    data: { labels: pairs.map((p) => p.label), datasets: [
      { label: 'mean wait (s)', data: pairs.map((p) => p.r.avg_queue_s), backgroundColor: '#6aa6ff' },
      { label: 'p95 wait (s)', data: pairs.map((p) => p.r.p95_queue_s), backgroundColor: '#9a6700' },
    ] },
  });
  draw(canvasIn(summary, 'r-util', 'GPU utilization (%)'), {
    type: 'bar',
    data: { labels: pairs.map((p) => p.label), datasets: [
      { label: 'utilization %', data: pairs.map((p) => p.r.gpu_utilization * 100), backgroundColor: '#1a7f37' },
    ] },
    options: { scales: { y: { min: 0, max: 100 } } },
  });
  variants.forEach((v, i) => {
    const sec = document.createElement('section');
    sec.dataset.variant = v.name;
    sec.innerHTML = `<h2>Variant ${esc(v.name)}: ${esc(v.cluster)}${v.gpus ? ` (${v.gpus} GPUs)` : ''}${v.inference_load ? `, inference load ${esc(v.inference_load)}` : ''}</h2>
      ${resultsTable(v)}<div class="charts"></div>`;
    box.appendChild(sec);
    const charts = sec.querySelector('.charts');
    const urgencies = URGENCIES.filter((u) => v.results.some((r) => r.by_urgency?.[u]));
    draw(canvasIn(charts, `r-v${i}-urgency`, 'Mean wait by urgency (s)'), {
      type: 'bar',
      data: { labels: urgencies, datasets: v.results.map((r, k) => ({
        label: r.policy, data: urgencies.map((u) => r.by_urgency?.[u]?.avg_queue_s ?? null),
        backgroundColor: ['#6aa6ff', '#f0883e', '#1a7f37', '#9a6700', '#8250df'][k % 5],
      })) },
    });
    const pools = [...new Set(v.results.flatMap((r) => Object.keys(r.pool_use || {})))];
    draw(canvasIn(charts, `r-v${i}-pools`, 'GPU-hours held per pool'), {
      type: 'bar',
      data: { labels: pools, datasets: v.results.map((r, k) => ({
        label: r.policy, data: pools.map((p) => r.pool_use?.[p]?.gpu_hours ?? 0),
        backgroundColor: ['#6aa6ff', '#f0883e', '#1a7f37', '#9a6700', '#8250df'][k % 5],
      })) },
    });
  });
}

function drawAdvise(box, doc) {
  const w = doc.what_ifs || [];
  box.innerHTML = `<section><h2>Capacity advice: ${esc(doc.history)} on ${esc(doc.cluster)} (${doc.jobs} jobs)</h2>
    <table><thead><tr><th>What if</th><th class="num">Mean wait</th><th class="num">p95 wait</th><th class="num">Mean JCT</th>
    <th class="num">Utilization</th><th class="num">Cost a month</th></tr></thead><tbody>
    ${w.map((x) => `<tr><td>${esc(x.what_if)}<div class="why">${esc(x.description)}</div></td><td class="num">${duration(x.mean_queue_s)}</td>
      <td class="num">${duration(x.p95_queue_s)}</td><td class="num">${duration(x.mean_jct_s)}</td>
      <td class="num">${percent(x.gpu_utilization, 1)}</td><td class="num">${number(x.cost_per_month)}</td></tr>`).join('')}
    </tbody></table><div class="charts" id="r-advise"></div></section>
    <section><h2>Spot</h2>${doc.spot ? `<table><thead><tr><th>Jobs</th><th class="num">GPU-hours</th><th>Verdict</th><th>Why</th></tr></thead><tbody>
      ${doc.spot.classes.map((c) => `<tr><td>${esc(c.class)}</td><td class="num">${number(c.gpu_hours, 1)}</td><td>${esc(c.verdict)}</td><td>${esc(c.reason)}</td></tr>`).join('')}
      </tbody></table>` : '<p class="na">skipped (no spot price)</p>'}</section>`;
  const charts = box.querySelector('#r-advise');
  draw(canvasIn(charts, 'r-whatif', 'What if: mean and p95 wait (s)'), {
    type: 'bar',
    data: { labels: w.map((x) => x.what_if), datasets: [
      { label: 'mean wait (s)', data: w.map((x) => x.mean_queue_s), backgroundColor: '#6aa6ff' },
      { label: 'p95 wait (s)', data: w.map((x) => x.p95_queue_s), backgroundColor: '#9a6700' },
    ] },
  });
  draw(canvasIn(charts, 'r-whatif-cost', 'What if: cost a month'), {
    type: 'bar',
    data: { labels: w.map((x) => x.what_if), datasets: [
      { label: 'cost a month', data: w.map((x) => x.cost_per_month), backgroundColor: '#f0883e' },
    ] },
  });
  const hours = doc.reserve_split?.hours_per_month_by_gpu;
  if (hours) {
    draw(canvasIn(charts, 'r-reserve', 'Hours a month the k-th GPU is needed (reserve above break-even)'), {
      type: 'line',
      data: { labels: hours.map((_, k) => k + 1), datasets: [
        { label: 'hours a month', data: hours, borderColor: '#6aa6ff' },
        { label: 'break-even', data: hours.map(() => doc.reserve_split.break_even_hours_per_month), borderColor: '#cf222e', pointRadius: 0 },
      ] },
    });
  }
}

export function showReport(box, doc) {
  if (Array.isArray(doc.what_ifs)) return drawAdvise(box, doc);
  if (Array.isArray(doc.variants) || Array.isArray(doc.results)) return drawSimulate(box, doc);
  throw new Error('not a report of squeeze simulate --json or squeeze advise --json');
}

export function reportView() {
  let root;
  function mount(el) {
    root = el;
    root.innerHTML = `<section><h2>Open a report</h2>
      <p>A JSON file from <code>squeeze simulate --json OUT</code> (a run or a <code>--scenario</code>) or
      <code>squeeze advise --json OUT</code>. It is read here, in the browser; nothing is uploaded.</p>
      <input type="file" id="report-file" accept=".json,application/json"> <span id="report-error" class="error"></span></section>
      <div id="report"></div>`;
    root.querySelector('#report-file').addEventListener('change', async (e) => {
      const file = e.target.files[0];
      const error = root.querySelector('#report-error');
      error.textContent = '';
      if (!file) return;
      try {
        showReport(root.querySelector('#report'), JSON.parse(await file.text()));
      } catch (err) {
        error.textContent = `${file.name}: ${err.message}`;
      }
    });
  }
  return { mount, refresh: async () => {}, pollEveryMs: 0 };
}
