// Small DOM helpers: every value from an agent or the user goes in as text, never as HTML.

/** h('div', { class: 'x', onclick: fn }, 'text', child) -> an element. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name === 'text') el.textContent = value;
    else if (name in el && typeof value !== 'string') el[name] = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Pretty JSON in a scrollable, focusable block (keyboard users can scroll it). */
export function jsonBlock(value, label) {
  const text = value === undefined ? '(none)' : JSON.stringify(value, null, 2);
  return h('pre', { class: 'json', tabindex: '0', 'aria-label': label ?? 'JSON' }, text);
}

export function badge(status) {
  return h('span', { class: `badge status-${String(status).replace(/[^a-z-]/g, '')}` }, String(status));
}

export function time(ms) {
  const d = new Date(ms);
  return d.toLocaleTimeString(undefined, { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}

let ids = 0;
export function uid(prefix = 'id') {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** The page's JSON API: throws Error(message) with `.status` and `.code` on a non-2xx answer. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (method === 'POST') body ??= {};
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const value = await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = new Error(value?.error?.message ?? `HTTP ${res.status}`);
    error.status = res.status;
    error.code = value?.error?.code;
    throw error;
  }
  return value;
}
