// Small formatting helpers shared by the views.
export function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  })[c]);
}

export function duration(s) {
  if (s === null || s === undefined || Number.isNaN(s)) return '';
  s = Math.round(s);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}

export function percent(x, digits = 0) {
  return x === null || x === undefined ? '' : `${(x * 100).toFixed(digits)}%`;
}

export function number(x, digits = 0) {
  return x === null || x === undefined ? '' : Number(x).toLocaleString('en-US', {
    maximumFractionDigits: digits, minimumFractionDigits: digits,
  });
}

export function time(epochOrIso) {
  if (epochOrIso === null || epochOrIso === undefined) return '';
  const d = typeof epochOrIso === 'number' ? new Date(epochOrIso * 1000) : new Date(epochOrIso);
  return d.toISOString().replace('T', ' ').replace(/:\d\d\.\d+Z$/, 'Z');
}
