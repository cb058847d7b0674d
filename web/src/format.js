// Small formatting helpers shared by the views. Every time the dashboard shows goes through
// time(): the browser's local time zone, as 2026-12-05 19:12:31, everywhere.
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

const pad = (n) => String(n).padStart(2, '0');

// A time (unix seconds, an ISO-8601 string such as the API's 2026-12-05T13:42:31Z, or a Date)
// in the browser's local time zone: 2026-12-05 19:12:31 (in UTC+05:30). '' for none.
export function time(when) {
  if (when === null || when === undefined || when === '') return '';
  const d = when instanceof Date ? when : new Date(typeof when === 'number' ? when * 1000 : when);
  if (Number.isNaN(d.getTime())) return String(when);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

// A text of the daemon's (a why line, a reason, an event) with its UTC times (2026-12-05T13:42:31Z)
// written as time() writes them, so the page shows one clock.
export function localText(text) {
  return String(text ?? '').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (iso) => time(iso));
}

// The local zone's offset from UTC now, as UTC+05:30 (minutes east of UTC: `eastMinutes`).
export function zoneText(eastMinutes = -new Date().getTimezoneOffset()) {
  const a = Math.abs(eastMinutes);
  return `UTC${eastMinutes < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

// 168 values by hour of the week from Monday 00:00 UTC, moved to the local week (Monday 00:00
// local time first) for a zone `eastMinutes` east of UTC, to the nearest whole hour.
export function localWeek(utcHours, eastMinutes = -new Date().getTimezoneOffset()) {
  const shift = Math.round(eastMinutes / 60);
  return utcHours.map((_, local) => utcHours[(((local - shift) % 168) + 168) % 168]);
}
