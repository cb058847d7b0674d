// The GPUs: every pool (kind, region, free GPUs, spot warning, co-location cap), every node
// and GPU with the jobs on it, how much of each GPU is given to jobs, its latest utilization
// reading and the inference load of colocated GPUs (also as a chart), the spot pools' reclaims
// (the last 200, kept across restarts), and the jobs holding GPUs they leave idle.
import { get, metric } from './api.js';
import { canvasIn, draw } from './charts.js';
import { duration, esc, localText, percent, time } from './format.js';

function poolRow(p) {
  const extra = [];
  if (p.spot) extra.push(`spot: ${duration(p.spot.warning_s)} warning`);
  if (p.colocation) extra.push(`training cap ${percent(p.colocation.cap)}, leaves within ${duration(p.colocation.evict_within_s)}`);
  if (p.controller) {
    extra.push(p.controller.reachable ? `Slurm ${esc(p.controller.cluster)} answers`
      : `Slurm ${esc(p.controller.cluster)} does not answer since ${time(p.controller.unreachable_since)}`);
  }
  return `<tr data-pool="${esc(p.name)}"><td>${esc(p.name)}</td><td><span class="tag">${esc(p.kind)}</span></td>
    <td>${esc(p.region)}</td><td>${esc(p.backend)}</td><td class="num">${p.gpus}</td>
    <td class="num">${p.free_gpus}</td><td>${esc(extra.join('; '))}</td></tr>`;
}

function gpuRows(node, jobsById) {
  const names = node.jobs.map((id) => {
    const j = jobsById.get(id);
    return j ? `${id} ${esc(j.name)} (${esc(j.owner)})` : String(id);
  }).join(', ');
  const nodeState = node.available ? 'takes jobs'
    : `<span class="error">${esc(localText(node.unavailable) || 'takes no new jobs')}</span>`;
  const reclaim = node.reclaimed
    ? `<div class="why">reclaimed ${esc(time(node.reclaimed.at))}, leave by ${esc(time(node.reclaimed.leave_by))}</div>` : '';
  return node.gpu_detail.map((g, i) => {
    const used = 1 - g.free_milli / 1000;
    const load = 'inference_load' in g
      ? `${g.inference_load === null ? 'no report yet' : percent(g.inference_load)}${g.takes_training ? '' : ' (closed to training)'}` : '';
    const util = g.utilization === undefined ? '<span class="na">no reading</span>'
      : `${percent(g.utilization)}<div class="why">${esc(time(g.utilization_at))}</div>`;
    return `<tr data-node="${esc(node.name)}" data-gpu="${g.gpu}">
      ${i === 0 ? `<td rowspan="${node.gpu_detail.length}">${esc(node.name)}<div class="why">${esc(node.pool)}, ${esc(node.gpu_model)}${node.virtual ? ' (virtual)' : ''}</div>${reclaim}</td>` : ''}
      <td class="num">${g.gpu}${g.cuda_index !== undefined ? `<div class="why">CUDA ${g.cuda_index}</div>` : ''}</td>
      <td><span class="bar" style="width:${Math.round(used * 60)}px"></span> ${percent(used)}</td>
      <td class="util">${util}</td>
      <td>${esc(load)}</td>
      ${i === 0 ? `<td rowspan="${node.gpu_detail.length}">${names || '<span class="na">none</span>'}</td><td rowspan="${node.gpu_detail.length}">${nodeState}</td>` : ''}
    </tr>`;
  }).join('');
}

function reclaimRows(pools) {
  const rows = [];
  for (const p of pools.pools) {
    for (const r of p.spot?.reclaims ?? []) {
      rows.push(`<tr data-reclaim="${esc(r.node)}"><td>${esc(p.name)}</td><td>${esc(r.node)}</td><td>${esc(time(r.at))}</td>
        <td>${esc(time(r.leave_by))}</td><td>${r.returned_at ? esc(time(r.returned_at)) : '<span class="na">not yet</span>'}</td></tr>`);
    }
  }
  return rows.reverse().join('');
}

function heldIdleRows(held) {
  return held.jobs.map((j) => `<tr><td class="num">${j.id}</td><td>${esc(j.name)}</td><td>${esc(j.user)}</td>
    <td>${esc(j.gpus.map((g) => `${g.node}:${g.gpu}`).join(', '))}</td><td class="num">${percent(j.mean_utilization)}</td>
    <td>${esc(time(j.idle_since))}</td></tr>`).join('');
}

export function gpusView() {
  let root;

  function mount(el) {
    root = el;
    root.innerHTML = `<section><h2>Pools</h2><table id="pools"><thead><tr><th>Pool</th><th>Kind</th>
        <th>Region</th><th>Backend</th><th class="num">GPUs</th><th class="num">Free</th><th></th></tr></thead>
        <tbody></tbody></table><p id="reclaims" class="why"></p>
        <table id="reclaim-log"><thead><tr><th>Spot pool</th><th>Node</th><th>Reclaimed</th><th>Leave by</th>
        <th>Returned</th></tr></thead><tbody></tbody></table></section>
      <section><h2>Nodes and GPUs</h2><table id="nodes"><thead><tr><th>Node</th><th class="num">GPU</th>
        <th>Taken (by jobs, or closed)</th><th>Utilization</th><th>Inference load</th><th>Jobs</th><th>State</th></tr></thead><tbody></tbody></table></section>
      <section class="charts" id="gpu-charts"></section>
      <section><h2>Held but idle</h2><p id="held-note" class="why"></p><table id="held"><thead><tr><th>ID</th><th>Name</th>
        <th>User</th><th>GPUs</th><th class="num">Mean use</th><th>Idle since</th></tr></thead><tbody></tbody></table></section>`;
  }

  async function refresh() {
    const [nodes, pools, held, running, reclaims] = await Promise.all([
      get('/v1/nodes'), get('/v1/pools'), get('/v1/held-idle'),
      get('/v1/jobs?state=running,checkpointing&limit=1000'), metric('squeeze_spot_reclaims_total'),
    ]);
    const jobsById = new Map(running.jobs.map((j) => [j.id, j]));
    root.querySelector('#pools tbody').innerHTML = pools.pools.map(poolRow).join('');
    const spotNodes = nodes.nodes.filter((n) => pools.pools.find((p) => p.name === n.pool)?.kind === 'spot');
    const now = spotNodes.filter((n) => n.reclaimed).map((n) => `${n.name} reclaimed ${time(n.reclaimed.at)}`);
    root.querySelector('#reclaims').textContent =
      `Spot reclaims since the daemon started: ${reclaims ?? 'unknown'}` +
      (now.length ? `; now: ${now.join(', ')}` : '; no spot node is reclaimed now');
    root.querySelector('#reclaim-log tbody').innerHTML = reclaimRows(pools) ||
      '<tr><td colspan="5" class="na">no reclaim yet</td></tr>';
    root.querySelector('#nodes tbody').innerHTML = nodes.nodes.map((n) => gpuRows(n, jobsById)).join('');
    const labels = []; const used = []; const load = []; const util = [];
    for (const n of nodes.nodes) {
      for (const g of n.gpu_detail) {
        labels.push(`${n.name}:${g.gpu}`);
        used.push(Math.round((1 - g.free_milli / 1000) * 100));
        load.push(g.inference_load === undefined || g.inference_load === null ? null : Math.round(g.inference_load * 100));
        util.push(g.utilization === undefined ? null : Math.round(g.utilization * 100));
      }
    }
    draw(canvasIn(root.querySelector('#gpu-charts'), 'gpu-use', 'Each GPU: taken, utilization and inference load (%)'), {
      type: 'bar',
      data: { labels, datasets: [
        { label: 'taken %', data: used, backgroundColor: '#6aa6ff' },
        { label: 'inference load %', data: load, backgroundColor: '#f0883e' },
        { label: 'utilization %', data: util, backgroundColor: '#2da44e' },
      ] },
      options: { scales: { y: { min: 0, max: 100 } } },
    });
    root.querySelector('#held-note').textContent =
      `running jobs whose every GPU stayed below ${percent(held.threshold)} for ${duration(held.window_s)}`;
    root.querySelector('#held tbody').innerHTML = heldIdleRows(held) || '<tr><td colspan="6" class="na">none</td></tr>';
  }

  return { mount, refresh };
}
