// The dashboard: the token prompt, then one view per tab (queue, GPUs, history, simulation
// reports), the visible one refreshed from the API every 1.5 s (its own pace if it says).
import { forgetToken, get, token, Unauthorized, whenUnauthorized } from './api.js';
import { Chart } from './charts.js';
import { gpusView } from './gpus_view.js';
import { historyView } from './history_view.js';
import { showLogin } from './login.js';
import { queueView } from './queue_view.js';
import { reportView } from './report_view.js';

const POLL_MS = 1500;
const VIEWS = { queue: queueView, gpus: gpusView, history: historyView, report: reportView };

const app = document.getElementById('app');
const status = document.getElementById('status');
const logout = document.getElementById('logout');
const views = {};
let active = null;
let busy = false;
let lastRefresh = 0;
let timer = null;

window.Chart = Chart; // for the browser test: Chart.getChart(canvas).data

function currentName() {
  const name = location.hash.replace('#', '');
  return VIEWS[name] ? name : 'queue';
}

async function refresh(force = false) {
  if (!active || busy) return;
  const every = active.view.pollEveryMs ?? POLL_MS;
  if (!force && (every === 0 || Date.now() - lastRefresh < every)) return;
  busy = true;
  try {
    await active.view.refresh();
    lastRefresh = Date.now();
    status.textContent = `updated ${new Date().toLocaleTimeString()}`;
    document.body.dataset.refreshed = String(lastRefresh);
  } catch (e) {
    if (!(e instanceof Unauthorized)) status.textContent = `error: ${e.message}`;
  } finally {
    busy = false;
  }
}

function show() {
  const name = currentName();
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
if (token()) start(); else login('');
