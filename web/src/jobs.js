// What the job page and the ended-jobs list show of a job (the API's job JSON, docs/api.md),
// as plain text: the views put it in the page with textContent only, since names, commands,
// reasons and logs are whatever a user of a shared server chose. No DOM here (unit-tested).
import { duration, localText, number, time } from './format.js';

export const ENDED = ['done', 'failed', 'cancelled', 'timeout'];
export const PRIVATE = '(private)';

// 12_4 for task 4 of array 12 (squeue's ARRAY_TASK), else the id.
export function idText(j) {
  return j.array_id !== null && j.array_id !== undefined ? `${j.array_id}_${j.array_task}` : `${j.id}`;
}

// The time it ran (all its runs, the current one so far): '' for a job that never started.
export function runText(j) {
  return !j.run_s && !j.started_at ? '' : duration(j.run_s ?? 0);
}

// An elastic job (gpus_range, docs/api.md): '4 of 2-8 (elastic)' while it runs on 4, '2-8
// (elastic)' while it waits.
export function gpusText(j) {
  const models = j.gpu_models?.length ? ` ${j.gpu_models.join('|')}` : '';
  if (typeof j.gpus_range === 'string') {
    const runs = (j.state === 'running' || j.state === 'checkpointing') && j.run_gpus?.length;
    return `${runs ? `${j.run_gpus.length} of ` : ''}${j.gpus_range} (elastic)${models}`;
  }
  const share = j.gpu_milli < 1000 ? `${j.gpu_milli}/1000 of ` : '';
  return `${share}${j.gpus}${models}`;
}

// An elastic job's GPU-hours at each width it ran at (gpu_hours_by_width, {"8": 1.2, "4": 0.5}),
// the widest first: '8 GPUs 1.20, 4 GPUs 0.50'; '' when there is none. What is not a width and a
// number is left out.
export function gpuHoursByWidthText(byWidth) {
  if (!byWidth || typeof byWidth !== 'object') return '';
  return Object.entries(byWidth)
    .filter(([w, h]) => /^[1-9][0-9]*$/.test(w) && typeof h === 'number')
    .sort(([a], [b]) => Number(b) - Number(a))
    .map(([w, h]) => `${w} GPU${w === '1' ? '' : 's'} ${number(h, 2)}`).join(', ');
}

// A command as a shell would take it back: words with spaces or quotes in single quotes.
export function commandText(argv) {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(' ');
}

// A field only its owner and the admins see: '(private)' for anyone else, `none` when unset.
function own(j, value, show = String, none = 'none') {
  if (value === null || value === undefined) return j.private ? PRIVATE : none;
  return show(value);
}

const yesNo = (b) => (b ? 'yes' : 'no');
const list = (xs, none) => (xs && xs.length ? xs.join(', ') : none);
const seconds = (s, none = 'none') => (s === null || s === undefined ? none : duration(s));
const when = (t, none) => time(t) || none;

function who(j) {
  const array = j.array_id === null || j.array_id === undefined ? 'none'
    : `task ${j.array_task} of array ${j.array_id}${j.array ? ` (${j.array})` : ''}`;
  return [['Owner', j.owner], ['Team', j.team], ['Urgency', j.urgency], ['Pool', j.pool || 'any'],
    ['Regions', list(j.regions, 'any')], ['Array', array], ['Dependency', j.dependency || 'none']];
}

function stateRows(j) {
  const reason = localText([j.reason_code, j.reason].filter(Boolean).join(': ')) || 'none';
  const rows = [['State', j.state], ['Reason', reason], ['Held', yesNo(j.held)],
    ['Exit code', exitText(j.exit_code) || 'none'], ['Begin', when(j.begin, 'when it can')],
    ['Deadline', when(j.deadline, 'none')]];
  if (j.details_purged_at) rows.push(['Details purged', time(j.details_purged_at)]);
  return rows;
}

function times(j) {
  const ended = ENDED.includes(j.state);
  return [['Submitted', time(j.submitted_at)], ['Started', when(j.started_at, 'not yet')],
    ['Ended', when(j.ended_at, ended ? 'unknown' : 'not yet')], ['Wait', seconds(j.wait_s, '')],
    ['Run time', runText(j) || 'not run'], ['Time limit', seconds(j.time_limit_s)],
    ['Estimate', seconds(j.estimate_s)]];
}

// What the job asks of its cards and of the topology (gpu_memory, gpu_speeds, topology).
function cards(j) {
  const speeds = Object.entries(j.gpu_speeds ?? {}).filter(([, v]) => typeof v === 'number')
    .map(([model, v]) => `${model} ${v}`).join(', ');
  return [['GPU memory', j.gpu_memory_mib ? `at least ${j.gpu_memory_mib} MiB per GPU` : 'any'],
    ['GPU speeds', speeds || 'not given'], ['Topology', j.topology ?? 'preferred']];
}

function resources(j) {
  const asked = (v, unit = '') => (v === null || v === undefined ? 'not asked' : `${v}${unit}`);
  return [['GPUs', gpusText(j)], ['Run nodes', list(j.run_nodes, 'none')],
    ['Run GPUs', list(j.run_gpus, 'none')], ['CPUs', asked(j.cpus)],
    ['Memory', asked(j.memory_mib, ' MiB')], ['Data', `${j.data_gb ?? 0} GB`],
    ['Preemptible', yesNo(j.preemptible)], ...cards(j),
    ...(j.gpu_hours_by_width
      ? [['GPU-hours by width', gpuHoursByWidthText(j.gpu_hours_by_width)]] : [])];
}

function howItRuns(j) {
  const env = (n) => `${n} variable${n === 1 ? '' : 's'} (values: squeeze show ${idText(j)} --env)`;
  return [['Command', own(j, j.command, commandText)], ['Workdir', own(j, j.workdir)],
    ['Output', own(j, j.output)], ['Error', own(j, j.error)],
    ['Environment', own(j, j.env_count, env)],
    ['Tasks', j.tasks === null || j.tasks === undefined ? 'one run per node' : String(j.tasks)]];
}

function checkpoints(j) {
  return [['Checkpointable', yesNo(j.checkpointable)], ['Fault tolerant', yesNo(j.fault_tolerant)],
    ['Interval', seconds(j.checkpoint_interval_s)], ['Last checkpoint', when(j.last_checkpoint, 'none')],
    ['Preemptions', String(j.preemptions ?? 0)], ['Attempts', String(j.attempts ?? 0)],
    ['Failures', String(j.failures ?? 0)], ['Retry at', when(j.retry_at, 'none')],
    ['Checkpoint dir', own(j, j.checkpoint_dir)]];
}

// The job's fields grouped as `scontrol show job` groups them: [{title, rows: [[label, text]]}].
export function jobSections(j) {
  return [{ title: 'Who', rows: who(j) }, { title: 'State', rows: stateRows(j) },
    { title: 'Times', rows: times(j) }, { title: 'Resources', rows: resources(j) },
    { title: 'How it runs', rows: howItRuns(j) }, { title: 'Checkpoints', rows: checkpoints(j) }];
}

export function exitText(code) {
  if (code === null || code === undefined) return '';
  return code > 128 && code < 160 ? `${code} (signal ${code - 128})` : String(code);
}

// One row of the ended-jobs list, as sacct: [column, text] pairs.
export function endedCells(j) {
  return [['id', idText(j)], ['name', j.name], ['owner', j.owner], ['state', j.state],
    ['wait', duration(j.wait_s)], ['run', runText(j)], ['gpuh', number(j.gpu_hours, 2)],
    ['exit', exitText(j.exit_code)], ['end', time(j.ended_at)]];
}

