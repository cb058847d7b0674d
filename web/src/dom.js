// Elements built with text only: h('td', {class: 'num'}, name) puts `name` in as a text node,
// never as HTML, so what a user chose (a job's name, command, reason, log) stays text.
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === null || v === undefined) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// A link to a job's page (#job/ID): its text, as text.
export function jobLink(id, text) {
  return h('a', { href: `#job/${encodeURIComponent(id)}`, class: 'job-link' }, text);
}
