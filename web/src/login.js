// The token prompt: asked once, kept in sessionStorage (api.js); shown again after any 401.
import { setToken } from './api.js';
import { esc } from './format.js';

export function showLogin(app, message, onToken) {
  app.innerHTML = `<form class="login section" id="login">
    <h2>squeeze dashboard</h2>
    <p>Paste your API token (<code>squeeze token add USER TEAM</code> prints one; the daemon's
    admin token is in <code>DIR/admin.token</code>). It stays in this browser tab only.</p>
    <p class="error" id="login-error">${esc(message || '')}</p>
    <input type="password" id="token" autocomplete="off" placeholder="token" required>
    <button type="submit">Open</button></form>`;
  const input = app.querySelector('#token');
  input.focus();
  app.querySelector('#login').addEventListener('submit', (e) => {
    e.preventDefault();
    setToken(input.value.trim());
    onToken();
  });
}
