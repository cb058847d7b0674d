// The dashboard: the token prompt, then one view per tab (queue, GPUs, history, simulation
// reports) and a job's page (#job/ID), the visible one refreshed from the API every 1.5 s (its
// own pace if it says).
import {
  forgetToken, get, loginCode, redeemLoginCode, setToken, token, Unauthorized, whenUnauthorized,
} from './api.js';
import { Chart } from './charts.js';
import { gpusView } from './gpus_view.js';
import { time } from './format.js';
import { historyView } from './history_view.js';
import { jobView } from './job_view.js';
import { showLogin } from './login.js';
import { queueView } from './queue_view.js';
import { reportView } from './report_view.js';

const POLL_MS = 1500;
const VIEWS = { queue: queueView, gpus: gpusView, history: historyView, report: reportView, job: jobView };

const app = document.getElementById('app');
const status = document.getElementById('status');
const logout = document.getElementById('logout');
const views = {};
let active = null;
let busy = false;
let again = false; // a forced refresh asked for while one ran: done when it ends
let lastRefresh = 0;
let timer = null;

window.Chart = Chart; // for the browser test: Chart.getChart(canvas).data

// #queue, #history, ...; #job/12: the view's name and what follows it.
function currentRoute() {
  const [name, ...rest] = location.hash.replace(/^#/, '').split('/');
  let arg = rest.join('/');
  try { arg = decodeURIComponent(arg); } catch { /* left as it is */ }
  return VIEWS[name] ? { name, arg } : { name: 'queue', arg: '' };
}

async function refresh(force = false) {
  if (busy) again ||= force;
  if (!active || busy) return;
  const every = active.view.pollEveryMs ?? POLL_MS;
  if (!force && (every === 0 || Date.now() - lastRefresh < every)) return;
  busy = true;
  try {
    await active.view.refresh();
    lastRefresh = Date.now();
    status.textContent = `updated ${time(new Date())}`;
    document.body.dataset.refreshed = String(lastRefresh);
  } catch (e) {
    if (!(e instanceof Unauthorized)) status.textContent = `error: ${e.message}`;
  } finally {
    busy = false;
  }
  if (again) {
    again = false;
    refresh(true);
  }
}

function show() {
  const { name, arg } = currentRoute();
  for (const a of document.querySelectorAll('#tabs a')) a.classList.toggle('active', a.dataset.view === name);
  if (!views[name]) {
    const el = document.createElement('div');
    el.id = `view-${name}`;
    app.appendChild(el);
    views[name] = { el, view: VIEWS[name]() };
    views[name].view.mount(el);
  }
  for (const [n, v] of Object.entries(views)) v.el.hidden = n !== name;
  active = views[name];
  active.view.route?.(arg);
  refresh(true);
}

function start() {
  app.innerHTML = '';
  for (const k of Object.keys(views)) delete views[k];
  logout.hidden = false;
  show();
  clearInterval(timer);
  timer = setInterval(() => refresh(), 250);
}

function login(message) {
  clearInterval(timer);
  active = null;
  logout.hidden = true;
  showLogin(app, message, async () => {
    try {
      await get('/v1/pools');
      start();
    } catch (e) {
      if (!(e instanceof Unauthorized)) login(e.message);
    }
  });
}

whenUnauthorized(() => login('The API refused the token: give another.'));
window.addEventListener('hashchange', () => { if (active) show(); });
logout.addEventListener('click', () => { forgetToken(); login(''); });

// `squeeze dashboard` prints a URL ending in #login=CODE: a code good once, for 60 s, traded
// here for a session token of the user who ran it. The code leaves the address bar at once.
async function begin() {
  const code = loginCode(location.hash);
  if (code) {
    history.replaceState(null, '', location.pathname + location.search);
    try {
      setToken((await redeemLoginCode(code)).token);
    } catch (e) {
      login(`The login link did not work: ${e.message}`);
      return;
    }
  }
  if (token()) start(); else login('');
}
begin();
