// <schema-form>: a form generated from a tool's request schema (one self-contained JSON Schema,
// local $refs only): required fields first, optional ones folded; enums as choices; nested
// objects as fieldsets; arrays with add/remove; oneOf/anyOf as a choice of variants. Every field
// carries its JSON pointer, so a validation issue is shown at the field it names.
import { h, uid } from './dom.js';

const MAX_DEPTH = 10;
/** Objects and arrays a required field stands in with while nothing inside it is filled. */
const EMPTY = new WeakSet();
const empty = (value) => (EMPTY.add(value), value);
const filled = (value) => value !== undefined && !(typeof value === 'object' && value !== null && EMPTY.has(value));

export class SchemaForm extends HTMLElement {
  #root;
  #defs = {};
  #hidden = new Set();

  /** view: { schema, filledByClient }; value: the arguments to start from. */
  setSchema(view, value = {}) {
    this.#defs = view.schema?.$defs ?? {};
    this.#hidden = new Set(view.filledByClient ?? []);
    this.replaceChildren();
    if (!view.schema) return;
    this.#root = this.#node(view.schema, { name: '', required: true, depth: 0, root: true }, value);
    this.append(this.#root.el);
    this.#root.bind('');
    this.addEventListener('input', () => this.#root.bind(''));
  }

  /** The arguments as the form holds them. */
  get value() {
    return this.#root?.get() ?? {};
  }

  /** Shows each issue at the deepest field its pointer names; returns the issues no field took. */
  showIssues(issues) {
    for (const el of this.querySelectorAll('.field-issue')) el.remove();
    for (const el of this.querySelectorAll('[aria-invalid="true"]')) {
      el.removeAttribute('aria-invalid');
      el.removeAttribute('aria-describedby');
    }
    if (!this.#root) return issues;
    this.#root.bind('');
    const fields = new Map([...this.querySelectorAll('[data-pointer]')].map((el) => [el.dataset.pointer, el]));
    const left = [];
    for (const issue of issues) {
      let pointer = issue.pointer;
      let field = fields.get(pointer);
      while (field === undefined && pointer !== '') {
        pointer = pointer.slice(0, pointer.lastIndexOf('/'));
        field = fields.get(pointer);
      }
      if (field === undefined || pointer === '') {
        left.push(issue);
        continue;
      }
      const id = uid('issue');
      const rest = issue.pointer.slice(pointer.length);
      const text = `${rest ? `${rest}: ` : ''}${issue.message}`;
      const control = field.querySelector(':scope > .control > input, :scope > .control > select, :scope > .control > textarea');
      field.append(h('p', { class: 'field-issue', id, role: 'alert' }, text));
      const target = control ?? field.querySelector('input, select, textarea');
      if (target) {
        target.setAttribute('aria-invalid', 'true');
        target.setAttribute('aria-describedby', id);
      }
      field.classList.add('has-issue');
    }
    for (const el of this.querySelectorAll('.has-issue')) if (!el.querySelector('.field-issue')) el.classList.remove('has-issue');
    // An issue inside a folded group opens it, so the field can be seen and reached.
    for (const issue of this.querySelectorAll('.field-issue')) {
      let at = issue.parentElement;
      while (at && at !== this) {
        if (at.tagName === 'DETAILS') at.open = true;
        at = at.parentElement;
      }
    }
    return left;
  }

  /** Focuses the field a pointer names (from the issue list). */
  focusPointer(pointer) {
    this.#root?.bind('');
    let p = pointer;
    for (;;) {
      const field = this.querySelector(`[data-pointer="${CSS.escape(p)}"]`);
      if (field) {
        let at = field.parentElement;
        while (at && at !== this) {
          if (at.tagName === 'DETAILS') at.open = true;
          at = at.parentElement;
        }
        (field.querySelector('input, select, textarea, button') ?? field).focus();
        return;
      }
      if (p === '') return;
      p = p.slice(0, p.lastIndexOf('/'));
    }
  }

  #deref(schema, depth = 0) {
    let s = schema ?? {};
    let guard = 0;
    while (typeof s.$ref === 'string' && guard++ < 20) {
      const target = this.#resolve(s.$ref);
      const { $ref: _ref, ...rest } = s;
      s = { ...target, ...rest };
    }
    if (Array.isArray(s.allOf) && depth < MAX_DEPTH) {
      const { allOf, ...rest } = s;
      let merged = { ...rest };
      for (const member of allOf) {
        const m = this.#deref(member, depth + 1);
        merged = {
          ...m,
          ...merged,
          properties: { ...(m.properties ?? {}), ...(merged.properties ?? {}) },
          required: [...new Set([...(m.required ?? []), ...(merged.required ?? [])])],
        };
        if (m.type && !merged.type) merged.type = m.type;
      }
      s = merged;
    }
    return s;
  }

  #resolve(ref) {
    if (!ref.startsWith('#/$defs/')) return {};
    const key = ref.slice('#/$defs/'.length).split('/')[0].replace(/~1/g, '/').replace(/~0/g, '~');
    const rest = ref.slice('#/$defs/'.length).split('/').slice(1);
    let at = this.#defs[key] ?? {};
    for (const token of rest) at = at?.[token.replace(/~1/g, '/').replace(/~0/g, '~')] ?? {};
    return at;
  }

  #node(raw, ctx, initial) {
    const s = this.#deref(raw);
    if (ctx.depth > MAX_DEPTH) return jsonNode(s, ctx, initial);
    if (s.const !== undefined) return constNode(s, ctx);
    if (Array.isArray(s.enum)) return enumNode(s, ctx, initial);
    const variants = s.oneOf ?? s.anyOf;
    if (Array.isArray(variants) && variants.length > 0) return this.#choiceNode(s, variants, ctx, initial);
    const type = typeOf(s);
    if (type === 'object' && s.properties && Object.keys(s.properties).length > 0) return this.#objectNode(s, ctx, initial);
    if (type === 'array' && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) return this.#arrayNode(s, ctx, initial);
    if (type === 'string' || type === 'number' || type === 'integer') return inputNode(s, type, ctx, initial);
    if (type === 'boolean') return enumNode({ ...s, enum: [true, false] }, ctx, initial);
    return jsonNode(s, ctx, initial);
  }

  #objectNode(s, ctx, initial) {
    const value = isObject(initial) ? initial : {};
    const required = new Set(s.required ?? []);
    const names = Object.keys(s.properties).filter((n) => !(ctx.root && this.#hidden.has(n)));
    const children = names.map((name) => ({
      name,
      required: required.has(name),
      node: this.#node(s.properties[name], { name, required: required.has(name), depth: ctx.depth + 1 }, value[name]),
    }));
    const first = children.filter((c) => c.required);
    const rest = children.filter((c) => !c.required);
    const optional = rest.length
      ? h(
          'details',
          { class: 'optional', open: rest.some((c) => value[c.name] !== undefined) },
          h('summary', {}, `Optional fields (${rest.length})`),
          rest.map((c) => c.node.el),
        )
      : null;
    const body = [first.map((c) => c.node.el), optional];
    // A variant's fields sit under the choice that names it: no second legend with the same name.
    const el = ctx.root
      ? h('div', { class: 'object root' }, ...body)
      : ctx.variant
        ? h('div', { class: 'field object variant-body', role: 'group', 'aria-labelledby': ctx.labelledBy }, ...body)
        : h('fieldset', { class: 'field object' }, legend(ctx, s), ...body);
    return {
      el,
      bind(pointer) {
        if (!ctx.root) el.dataset.pointer = pointer;
        for (const c of children) c.node.bind(`${pointer}/${escapeToken(c.name)}`);
      },
      get() {
        const out = {};
        let any = false;
        for (const c of children) {
          const v = c.node.get();
          if (v !== undefined) out[c.name] = v;
          if (filled(v) && !c.node.fixed) any = true;
        }
        if (any) return out;
        // Nothing typed inside: a required object stays (so its own required fields are named), an optional one goes.
        if (ctx.root || ctx.inArray || ctx.required) return empty(out);
        return undefined;
      },
    };
  }

  #arrayNode(s, ctx, initial) {
    const list = h('ol', { class: 'items' });
    const items = [];
    const add = (value) => {
      const node = this.#node(s.items, { name: `${ctx.name} item`, required: true, depth: ctx.depth + 1, inArray: true }, value);
      const entry = { node };
      const remove = h('button', { type: 'button', class: 'small', onclick: () => {
        items.splice(items.indexOf(entry), 1);
        entry.li.remove();
        this.dispatchEvent(new Event('input', { bubbles: true }));
      } }, `Remove this ${ctx.name} item`);
      entry.li = h('li', {}, node.el, remove);
      items.push(entry);
      list.append(entry.li);
      return entry;
    };
    for (const v of Array.isArray(initial) ? initial : []) add(v);
    const addButton = h('button', { type: 'button', class: 'small', onclick: () => {
      const entry = add(undefined);
      entry.li.querySelector('input, select, textarea')?.focus();
      this.dispatchEvent(new Event('input', { bubbles: true }));
    } }, `Add ${ctx.name} item`);
    const el = ctx.variant
      ? h('div', { class: 'field array variant-body', role: 'group', 'aria-labelledby': ctx.labelledBy }, list, addButton)
      : h('fieldset', { class: 'field array' }, legend(ctx, s), list, addButton);
    return {
      el,
      bind(pointer) {
        el.dataset.pointer = pointer;
        items.forEach((e, i) => e.node.bind(`${pointer}/${i}`));
      },
      get() {
        if (items.length === 0) return ctx.required ? empty([]) : undefined;
        return items.map((e) => e.node.get() ?? null);
      },
    };
  }

  #choiceNode(s, variants, ctx, initial) {
    const { oneOf: _o, anyOf: _a, ...base } = s;
    const options = variants.map((v) => {
      const d = this.#deref(v);
      const merged = { ...base, ...d };
      if (base.properties || d.properties) merged.properties = { ...(base.properties ?? {}), ...(d.properties ?? {}) };
      if (base.required || d.required) merged.required = [...new Set([...(base.required ?? []), ...(d.required ?? [])])];
      return { schema: merged, label: variantLabel(merged) };
    });
    const id = uid('choice');
    const labelId = `${id}-label`;
    const select = h('select', { id }, h('option', { value: '' }, ctx.required ? '— choose one —' : '— not set —'),
      options.map((o, i) => h('option', { value: String(i) }, o.label)));
    const slot = h('div', { class: 'variant' });
    let current;
    let pointer = '';
    const show = (value) => {
      slot.replaceChildren();
      current = select.value === '' ? undefined : this.#node(options[Number(select.value)].schema, { ...ctx, depth: ctx.depth + 1, variant: true, labelledBy: labelId }, value);
      if (current) {
        slot.append(current.el);
        current.bind(pointer);
      }
    };
    const fit = pickVariant(options.map((o) => o.schema), initial);
    if (fit >= 0) select.value = String(fit);
    select.addEventListener('change', () => {
      show(undefined);
      this.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const el = h('div', { class: 'field choice' }, h('label', { for: id, id: labelId }, labelText(ctx, 'one of')), h('div', { class: 'control' }, select), slot);
    show(fit >= 0 ? initial : undefined);
    return {
      el,
      bind(p) {
        pointer = p;
        el.dataset.pointer = p;
        current?.bind(p);
      },
      get() {
        return current?.get();
      },
    };
  }
}

function constNode(s, ctx) {
  const el = h('div', { class: 'field const' }, h('span', { class: 'label' }, labelText(ctx)), h('code', {}, JSON.stringify(s.const)));
  return {
    el,
    /** A fixed value is not something the user typed: it alone does not make its object filled. */
    fixed: true,
    bind(p) {
      el.dataset.pointer = p;
    },
    get: () => (ctx.variant || ctx.required ? s.const : undefined),
  };
}

function enumNode(s, ctx, initial) {
  const id = uid('enum');
  const select = h('select', { id, name: ctx.name },
    h('option', { value: '' }, '— not set —'),
    s.enum.map((v, i) => h('option', { value: String(i) }, typeof v === 'string' ? v : JSON.stringify(v))));
  const at = s.enum.findIndex((v) => JSON.stringify(v) === JSON.stringify(initial));
  if (at >= 0) select.value = String(at);
  const el = h('div', { class: 'field enum' }, h('label', { for: id }, labelText(ctx, typeOf(s) === 'boolean' ? 'true or false' : 'choice')), h('div', { class: 'control' }, select));
  return {
    el,
    bind(p) {
      el.dataset.pointer = p;
    },
    get: () => (select.value === '' ? undefined : s.enum[Number(select.value)]),
  };
}

function inputNode(s, type, ctx, initial) {
  const id = uid('in');
  const numeric = type !== 'string';
  const attrs = { id, name: ctx.name, type: numeric ? 'number' : s.format === 'uri' ? 'url' : 'text', autocomplete: 'off', spellcheck: false };
  if (numeric) attrs.step = type === 'integer' ? '1' : 'any';
  if (s.format === 'date-time') attrs.placeholder = 'e.g. 2026-12-31T23:59:59Z';
  else if (s.format === 'date') attrs.placeholder = 'e.g. 2026-12-31';
  else if (s.format === 'uri') attrs.placeholder = 'https://…';
  const input = h('input', attrs);
  if (initial !== undefined && initial !== null) input.value = String(initial);
  const hint = [type, s.format, s.minimum !== undefined ? `≥ ${s.minimum}` : '', s.maxLength ? `≤ ${s.maxLength} chars` : '']
    .filter(Boolean).join(', ');
  const el = h('div', { class: 'field input' }, h('label', { for: id }, labelText(ctx, hint)), h('div', { class: 'control' }, input));
  return {
    el,
    bind(p) {
      el.dataset.pointer = p;
    },
    get() {
      if (input.value === '') return undefined;
      if (!numeric) return input.value;
      const n = Number(input.value);
      return Number.isFinite(n) ? n : input.value;
    },
  };
}

function jsonNode(s, ctx, initial) {
  const id = uid('json');
  const area = h('textarea', { id, rows: '3', spellcheck: false, placeholder: 'JSON' });
  if (initial !== undefined) area.value = JSON.stringify(initial, null, 2);
  const el = h('div', { class: 'field json-field' }, h('label', { for: id }, labelText(ctx, `${typeOf(s) ?? 'any'}, as JSON`)), h('div', { class: 'control' }, area));
  return {
    el,
    bind(p) {
      el.dataset.pointer = p;
    },
    get() {
      if (area.value.trim() === '') return undefined;
      try {
        return JSON.parse(area.value);
      } catch {
        return area.value;
      }
    },
  };
}

function legend(ctx, s) {
  return h('legend', {}, labelText(ctx, typeOf(s) === 'array' ? 'list' : ''));
}

function labelText(ctx, hint = '') {
  // Inside a variant the choice above already shows the name: screen readers still hear it.
  const parts = [h('span', { class: ctx.variant ? 'name visually-hidden' : 'name' }, ctx.name || 'arguments')];
  if (ctx.required && !ctx.inArray && !ctx.variant) parts.push(h('span', { class: 'req' }, ' required'));
  if (hint) parts.push(h('span', { class: 'hint' }, ` ${hint}`));
  return parts;
}

function typeOf(s) {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (t) return t;
  if (s.properties) return 'object';
  if (s.items) return 'array';
  return undefined;
}

function variantLabel(s) {
  if (s.const !== undefined) return JSON.stringify(s.const);
  const consts = Object.entries(s.properties ?? {}).filter(([, p]) => p && p.const !== undefined);
  if (consts.length > 0) return consts.map(([k, p]) => `${k} = ${JSON.stringify(p.const)}`).join(', ');
  if (Array.isArray(s.required) && s.required.length > 0) return s.required.join(' + ');
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const type = typeOf(s) ?? 'any';
  return s.format ? `${type} (${s.format})` : type;
}

/** The variant a value fits best: its const, its type, then the most required keys present. */
function pickVariant(schemas, value) {
  if (value === undefined) return -1;
  let best = -1;
  let score = -1;
  schemas.forEach((s, i) => {
    let points = -1;
    if (s.const !== undefined) points = JSON.stringify(s.const) === JSON.stringify(value) ? 100 : -1;
    else if (isObject(value) && typeOf(s) === 'object') {
      const req = s.required ?? [];
      points = req.every((k) => k in value) ? 10 + req.length : -1;
    } else if (typeof value === 'string' && typeOf(s) === 'string') points = 5;
    else if (typeof value === 'number' && (typeOf(s) === 'number' || typeOf(s) === 'integer')) points = 5;
    else if (Array.isArray(value) && typeOf(s) === 'array') points = 5;
    if (points > score) {
      score = points;
      best = i;
    }
  });
  return score >= 0 ? best : -1;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function escapeToken(token) {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

customElements.define('schema-form', SchemaForm);
