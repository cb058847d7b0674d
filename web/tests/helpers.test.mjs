// The dashboard's pure helpers (format.js, jobs.js), in Node without a browser:
//   web/node.sh tests/helpers.test.mjs      (also run first by tests/dashboard.test.mjs)
// Times are checked in a zone 5:30 east of UTC, so a UTC time shown as it is would fail.
import assert from 'node:assert/strict';

process.env.TZ = 'Asia/Kolkata';
const { duration, localText, localWeek, time, zoneText } = await import('../src/format.js');
const jobs = await import('../src/jobs.js');
const { loginCode } = await import('../src/api.js');

const checks = [];
const check = (name, fn) => checks.push([name, fn]);

check('time: local, one format, from ISO, seconds and Date', () => {
  assert.equal(time('2026-12-05T13:42:31Z'), '2026-12-05 19:12:31');
  assert.equal(time(Date.UTC(2026, 11, 5, 13, 42, 31) / 1000), '2026-12-05 19:12:31');
  assert.equal(time(new Date('2026-12-31T20:00:00Z')), '2027-01-01 01:30:00');
  assert.equal(time(null), '');
  assert.equal(time(undefined), '');
  assert.equal(time('not a time'), 'not a time');
});

check('localText: the daemon\'s UTC times in a text, as time() writes them', () => {
  assert.equal(localText('retry at 2026-12-05T13:42:31Z (after 2026-12-05T13:40:00.5Z)'),
    'retry at 2026-12-05 19:12:31 (after 2026-12-05 19:10:00)');
  assert.equal(localText('no time here: 12:00'), 'no time here: 12:00');
  assert.equal(localText(null), '');
});

check('gpusText: an elastic job\'s width and range, a fraction, models', () => {
  const elastic = { gpus: 2, gpu_milli: 1000, gpus_range: '2-8', gpu_models: ['A100'] };
  assert.equal(jobs.gpusText({ ...elastic, state: 'running', run_gpus: [0, 1, 2, 3] }),
    '4 of 2-8 (elastic) A100');
  assert.equal(jobs.gpusText({ ...elastic, state: 'pending', run_gpus: [0, 1] }), '2-8 (elastic) A100');
  assert.equal(jobs.gpusText({ gpus: 1, gpu_milli: 500, gpus_range: null, gpu_models: [] }),
    '500/1000 of 1');
});

check('gpuHoursByWidthText: an elastic job\'s GPU-hours, the widest first, broken values left out', () => {
  assert.equal(jobs.gpuHoursByWidthText({ 4: 0.5, 8: 1.2, 1: 0.25 }), '8 GPUs 1.20, 4 GPUs 0.50, 1 GPU 0.25');
  assert.equal(jobs.gpuHoursByWidthText({ x: 1, '-2': 3, 2: '<b>' }), '');
  assert.equal(jobs.gpuHoursByWidthText(null), '');
  const sections = jobs.jobSections({ gpus: 2, gpus_range: '2-8', gpu_hours_by_width: { 8: 1 } });
  const rows = sections.find((s) => s.title === 'Resources').rows;
  assert.deepEqual(rows.at(-1), ['GPU-hours by width', '8 GPUs 1.00']);
  const fixed = jobs.jobSections({ gpus: 2 }).find((s) => s.title === 'Resources').rows;
  assert.ok(!fixed.some(([label]) => label === 'GPU-hours by width'));
});

check('loginCode: only a #login= of 64 hex digits', () => {
  const code = 'ab'.repeat(32);
  assert.equal(loginCode(`#login=${code}`), code);
  assert.equal(loginCode(`#login=${code}x`), null);
  assert.equal(loginCode('#login=<script>'), null);
  assert.equal(loginCode('#job/12'), null);
  assert.equal(loginCode(''), null);
});

check('zoneText and localWeek', () => {
  assert.equal(zoneText(330), 'UTC+05:30');
  assert.equal(zoneText(-300), 'UTC-05:00');
  assert.equal(zoneText(), 'UTC+05:30');
  const week = Array.from({ length: 168 }, (_, i) => i);
  assert.deepEqual(localWeek(week, 0), week);
  assert.equal(localWeek(week, 120)[2], 0, 'Monday 02:00 in UTC+2 is Monday 00:00 UTC');
  assert.equal(localWeek(week, 120)[0], 166, 'Monday 00:00 in UTC+2 is Sunday 22:00 UTC');
  assert.equal(localWeek(week, -300)[0], 5, 'Monday 00:00 in UTC-5 is Monday 05:00 UTC');
  assert.equal(localWeek(week, 330)[6], 0, 'UTC+5:30 to the nearest hour (6)');
});

check('duration and run time', () => {
  assert.equal(duration(3900), '1h05m');
  assert.equal(jobs.runText({ run_s: 3900, started_at: 'x' }), '1h05m');
  assert.equal(jobs.runText({ run_s: 0, started_at: null }), '');
  assert.equal(jobs.runText({ run_s: 0, started_at: '2026-12-05T13:42:31Z' }), '0s');
});

check('idText, exitText, commandText', () => {
  assert.equal(jobs.idText({ id: 16, array_id: 12, array_task: 4 }), '12_4');
  assert.equal(jobs.idText({ id: 16, array_id: null, array_task: null }), '16');
  assert.equal(jobs.exitText(0), '0');
  assert.equal(jobs.exitText(137), '137 (signal 9)');
  assert.equal(jobs.exitText(null), '');
  assert.equal(jobs.commandText(['sh', '-c', "echo 'hi' there", 'a.py']), "sh -c 'echo '\\''hi'\\'' there' a.py");
});

const HOSTILE = '<img src=x onerror=alert(1)>';
const job = {
  id: 16, name: HOSTILE, owner: 'alice', team: 'ml', state: 'done', reason: '', urgency: 'low',
  gpus: 2, gpu_milli: 1000, gpu_models: ['A100'], cpus: null, memory_mib: 4096, pool: '', regions: [],
  data_gb: 0, preemptible: true, checkpointable: true, fault_tolerant: false, checkpoint_interval_s: 300,
  estimate_s: 600, time_limit_s: null, deadline: null, private: false, command: ['python', 'train.py'],
  workdir: '/home/alice', env: null, env_count: 3, tasks: null, output: null, error: null,
  array_id: 12, array_task: 4, array: '0-9', dependency: null, held: false, begin: null,
  checkpoint_dir: '/var/lib/squeeze/checkpoints/16', submitted_at: '2026-12-05T13:00:00Z',
  started_at: '2026-12-05T13:00:10Z', ended_at: '2026-12-05T13:42:31Z', wait_s: 10, run_s: 2541,
  gpu_hours: 1.4117, exit_code: 0, attempts: 2, failures: 0, retry_at: null, preemptions: 1,
  last_checkpoint: '2026-12-05T13:40:00Z', run_gpus: [0, 1], run_nodes: ['own-0'],
};
const field = (j, group, label) => new Map(jobs.jobSections(j).find((s) => s.title === group).rows).get(label);

check('jobSections: scontrol groups, local times, env count', () => {
  assert.deepEqual(jobs.jobSections(job).map((s) => s.title),
    ['Who', 'State', 'Times', 'Resources', 'How it runs', 'Checkpoints']);
  assert.equal(field(job, 'Times', 'Ended'), '2026-12-05 19:12:31');
  assert.equal(field(job, 'Times', 'Run time'), '42m21s');
  assert.equal(field(job, 'Times', 'Time limit'), 'none');
  assert.equal(field(job, 'Resources', 'GPUs'), '2 A100');
  assert.equal(field(job, 'Resources', 'Run nodes'), 'own-0');
  assert.equal(field(job, 'Resources', 'Memory'), '4096 MiB');
  assert.equal(field(job, 'Resources', 'GPU memory'), 'any');
  assert.equal(field(job, 'Resources', 'Topology'), 'preferred');
  const carded = { ...job, gpu_memory_mib: 40960, gpu_speeds: { K80: 0.24, V100: 1 }, topology: 'required:rack' };
  assert.equal(field(carded, 'Resources', 'GPU memory'), 'at least 40960 MiB per GPU');
  assert.equal(field(carded, 'Resources', 'GPU speeds'), 'K80 0.24, V100 1');
  assert.equal(field(carded, 'Resources', 'Topology'), 'required:rack');
  assert.equal(field(job, 'How it runs', 'Environment'), '3 variables (values: squeeze show 12_4 --env)');
  assert.equal(field(job, 'How it runs', 'Output'), 'none');
  assert.equal(field(job, 'Who', 'Array'), 'task 4 of array 12 (0-9)');
  assert.equal(field(job, 'Checkpoints', 'Last checkpoint'), '2026-12-05 19:10:00');
});

check('jobSections: someone else\'s job shows (private)', () => {
  const other = { ...job, private: true, command: null, workdir: null, env_count: null, output: null,
    error: null, checkpoint_dir: null };
  for (const label of ['Command', 'Workdir', 'Output', 'Error', 'Environment']) {
    assert.equal(field(other, 'How it runs', label), jobs.PRIVATE, label);
  }
  assert.equal(field(other, 'Checkpoints', 'Checkpoint dir'), jobs.PRIVATE);
});

check('endedCells: sacct columns, the name as it is (the view puts it in as text)', () => {
  assert.deepEqual(jobs.endedCells(job), [['id', '12_4'], ['name', HOSTILE], ['owner', 'alice'],
    ['state', 'done'], ['wait', '10s'], ['run', '42m21s'], ['gpuh', '1.41'], ['exit', '0'],
    ['end', '2026-12-05 19:12:31']]);
});

let failed = 0;
for (const [name, fn] of checks) {
  try {
    fn();
  } catch (e) {
    failed += 1;
    console.error(`FAIL helpers: ${name}: ${e.message}`);
  }
}
console.log(`helpers: ${checks.length - failed} of ${checks.length} checks passed`);
if (failed) process.exit(1);
