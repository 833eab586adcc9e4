// <adcp-inspector>: the page. Agents, then five tabs: Discover, Call, Tasks, Check, History.
// Credentials never reach this page: it names an agent by the id the inspector gave it.
import { api, h, time, badge } from './dom.js';
import { callView, checksView, discoveryView, issueList, statusOf, storyboardReport } from './views.js';
import './schema-form.js';

const TABS = [
  ['discover', 'Discover'],
  ['call', 'Call'],
  ['tasks', 'Tasks'],
  ['check', 'Check'],
  ['history', 'History'],
];

class AdcpInspector extends HTMLElement {
  agents = [];
  /** @type {string | undefined} */
  agentId = undefined;
  discoveries = new Map();
  calls = new Map();
  tab = 'discover';
  schemaView = undefined;
  continueOf = undefined;
  #validateTimer = undefined;
  #validation = 0;
  #schemaLoad = 0;

  async connectedCallback() {
    this.replaceChildren(this.#layout());
    const state = await api('GET', '/api/state');
    this.agents = state.agents;
    this.webhookBase = state.webhookBase;
    this.historyPath = state.historyPath;
    this.querySelector('#sb-budget').placeholder = `default ${state.storyboardBudgetSeconds}`;
    if (!state.storyboards) {
      this.querySelector('#run-storyboards').disabled = true;
      this.querySelector('#storyboard-about').textContent = 'No compliance suite: start adcp inspect with --compliance-dir DIR (or ADCP_COMPLIANCE_DIR), or --release VERSION, to run the storyboards here.';
    }
    this.#renderAgents();
    this.#stream();
    const wanted = location.hash.slice(1);
    this.#selectTab(TABS.some(([id]) => id === wanted) ? wanted : 'discover', false);
    // Interactive now; the first agent's discovery fills the Discover tab when it answers.
    this.dataset.ready = 'true';
    if (this.agents.length > 0) await this.#selectAgent(this.agents[0].id);
    else this.querySelector('#agent-url').focus();
  }

  #layout() {
    const tablist = h('div', { role: 'tablist', 'aria-label': 'Inspector sections', onkeydown: (e) => this.#tabKeys(e) },
      TABS.map(([id, label]) => h('button', { type: 'button', role: 'tab', id: `tab-${id}`, 'aria-controls': `panel-${id}`,
        'aria-selected': 'false', tabindex: '-1', onclick: () => this.#selectTab(id) }, label)));
    const panels = TABS.map(([id, label]) => h('section', { role: 'tabpanel', id: `panel-${id}`, 'aria-labelledby': `tab-${id}`, hidden: true, tabindex: '0' },
      h('h2', { class: 'visually-hidden' }, label), this.#panel(id)));
    return h('div', { class: 'app' },
      h('header', { class: 'top' },
        h('h1', {}, h('span', { class: 'logo', 'aria-hidden': 'true' }, '⌕'), ' adcp inspect'),
        h('div', { class: 'agent-bar' },
          h('label', { for: 'agent-select' }, 'Agent'),
          h('select', { id: 'agent-select', onchange: (e) => this.#selectAgent(e.target.value) }),
          h('details', { class: 'add-agent', id: 'add-agent' },
            h('summary', {}, 'Add an agent'),
            h('form', { id: 'agent-form', onsubmit: (e) => this.#addAgent(e) },
              h('label', { for: 'agent-url' }, 'URL'),
              h('input', { id: 'agent-url', type: 'url', required: true, placeholder: 'http://127.0.0.1:3000/mcp', size: '34', autocomplete: 'url' }),
              h('label', { for: 'agent-protocol' }, 'Wire'),
              h('select', { id: 'agent-protocol' }, ['auto', 'mcp', 'a2a'].map((p) => h('option', { value: p }, p))),
              h('label', { for: 'agent-auth' }, 'Bearer token'),
              h('input', { id: 'agent-auth', type: 'password', autocomplete: 'off', placeholder: 'optional; kept by the inspector, not this page' }),
              h('label', { for: 'agent-jwks' }, 'Webhook JWKS URL'),
              h('input', { id: 'agent-jwks', type: 'url', autocomplete: 'off', placeholder: 'optional; else webhooks use the legacy HMAC' }),
              h('button', { type: 'submit' }, 'Add and discover'),
              h('p', { class: 'form-error', id: 'agent-error', role: 'alert' }))))),
      h('nav', {}, tablist),
      h('main', {}, panels),
      h('footer', {}, h('p', { id: 'footer' }, 'Loopback only. Nothing leaves this machine except calls to the agents you name.')));
  }

  #panel(id) {
    if (id === 'discover') {
      return [h('p', {}, h('button', { type: 'button', id: 'discover-again', onclick: () => this.#discover(true) }, 'Discover again')),
        h('div', { id: 'discovery', 'aria-live': 'polite' }, h('p', { class: 'hint' }, 'Add an agent to start.'))];
    }
    if (id === 'call') {
      return [
        h('form', { id: 'call-form', class: 'call-form', onsubmit: (e) => this.#send(e), novalidate: true },
          h('div', { id: 'continue-note', hidden: true, class: 'note' }),
          h('div', { class: 'row' },
            h('label', { for: 'tool-select' }, 'Tool'),
            h('select', { id: 'tool-select', onchange: () => this.#loadSchema() }),
            h('span', { id: 'schema-info', class: 'hint' })),
          h('fieldset', { class: 'mode' }, h('legend', {}, 'Arguments'),
            h('label', {}, h('input', { type: 'radio', name: 'mode', value: 'form', checked: true, onchange: () => this.#switchMode('form') }), ' Form'),
            h('label', {}, h('input', { type: 'radio', name: 'mode', value: 'json', onchange: () => this.#switchMode('json') }), ' JSON')),
          h('schema-form', { id: 'schema-form', oninput: () => this.#liveValidate() }),
          h('div', { id: 'json-editor', hidden: true },
            h('label', { for: 'raw-json' }, 'Arguments as JSON'),
            h('textarea', { id: 'raw-json', rows: '16', spellcheck: false, oninput: () => this.#liveValidate() })),
          h('div', { id: 'issues', 'aria-live': 'polite' }),
          h('fieldset', { class: 'options' }, h('legend', {}, 'Options'),
            h('label', {}, h('input', { type: 'checkbox', id: 'opt-webhook' }), ' Push status changes to the inspector\u2019s webhook receiver'),
            h('label', {}, h('input', { type: 'checkbox', id: 'opt-mcp-task' }), ' Ask for an MCP Task (MCP 2025 era)'),
            h('label', {}, h('input', { type: 'checkbox', id: 'opt-force' }), ' Send even if the arguments fail the schema')),
          h('p', {}, h('button', { type: 'submit', id: 'send', class: 'primary' }, 'Send'), ' ', h('span', { id: 'send-state', class: 'hint', 'aria-live': 'polite' }))),
        h('div', { id: 'call-result' }),
      ];
    }
    if (id === 'tasks') return [h('p', { class: 'hint' }, 'Calls answered submitted or working are followed here live, with their webhooks.'), h('div', { id: 'task-list' })];
    if (id === 'check') {
      return [h('h3', {}, 'Conformance checks'),
        h('p', {}, h('button', { type: 'button', id: 'run-checks', onclick: () => this.#runChecks() }, 'Run the checks'), ' ',
          h('span', { class: 'hint' }, 'The conformance checks that apply to a live agent: cards, A2A profile, capabilities and their schema, release, MCP era, task support, tools.')),
        h('div', { id: 'checks', 'aria-live': 'polite' }),
        h('h3', {}, 'Storyboards'),
        h('form', { id: 'storyboard-form', onsubmit: (e) => this.#runStoryboards(e) },
          h('div', { class: 'row' },
            h('button', { type: 'submit', id: 'run-storyboards' }, 'Run the storyboards'), ' ',
            h('label', { for: 'storyboard-ids' }, 'Only these (ids, comma-separated)'), ' ',
            h('input', { id: 'storyboard-ids', type: 'text', autocomplete: 'off', spellcheck: false, placeholder: 'default: every storyboard that applies' })),
          // The runner's options, as adcp storyboard run takes them (its flag beside each).
          h('details', { class: 'run-options', id: 'storyboard-options' },
            h('summary', {}, 'Run options'),
            h('label', {}, h('input', { type: 'checkbox', id: 'sb-webhooks', checked: true }),
              ' Webhook receiver for the expect_webhook steps (off: --no-webhooks, those steps are not applicable)'),
            h('label', {}, h('input', { type: 'checkbox', id: 'sb-allow-http' }),
              ' Let runner tasks fetch http:// and private or loopback URLs the agent names: an OAuth issuer, a brand.json, a jwks_uri (--allow-http; local tests only)'),
            h('label', {}, h('input', { type: 'checkbox', id: 'sb-rate-limit-trip' }),
              ' Trip the agent\u2019s rate limiter with up to 500 sequential writes, then check RATE_LIMITED is not replayed (--rate-limit-trip)'),
            h('label', {}, h('input', { type: 'checkbox', id: 'sb-seeded-state' }),
              ' Prerequisite state was seeded out of band (--seeded-state)'),
            h('div', { class: 'row' },
              h('label', { for: 'sb-brand-json' }, 'brand.json URL (--brand-json)'),
              h('input', { id: 'sb-brand-json', type: 'url', autocomplete: 'off', placeholder: 'when the capabilities declare no identity.brand_json_url' })),
            h('div', { class: 'row' },
              h('label', { for: 'sb-signing-vectors' }, 'Request-signing vectors folder (--signing-vectors)'),
              h('input', { id: 'sb-signing-vectors', type: 'text', autocomplete: 'off', spellcheck: false, placeholder: 'keys.json, positive/, negative/; default the suite\u2019s own' })),
            h('div', { class: 'row' },
              h('label', { for: 'sb-budget' }, 'Budget of the run, seconds (--budget)'),
              h('input', { id: 'sb-budget', type: 'number', min: '1', max: '3600', step: '1', inputmode: 'numeric' })))),
        h('p', { id: 'storyboard-about', class: 'hint' }, 'The official compliance storyboards that apply to the agent (selected from its capabilities), run against it live: every step\u2019s verdict with the request, the answer, the JSON pointer, expected and actual, and the storyboard text it comes from.'),
        h('p', { id: 'storyboard-progress', class: 'hint', role: 'status' }),
        h('div', { id: 'storyboards' })];
    }
    return [h('p', {},
      h('button', { type: 'button', id: 'history-refresh', onclick: () => this.#loadHistory() }, 'Refresh'), ' ',
      h('a', { href: '/api/export', download: '', id: 'export', class: 'button' }, 'Export as a file'), ' ',
      h('label', { class: 'button', for: 'import-file' }, 'Open an exported file'),
      h('input', { type: 'file', id: 'import-file', accept: 'application/json,.json', class: 'visually-hidden', onchange: (e) => this.#openExport(e) })),
    h('p', { id: 'history-where', class: 'hint' }),
    h('div', { class: 'history' }, h('ol', { id: 'history-list', class: 'history-list' }), h('div', { id: 'history-detail' }))];
  }

  #tabKeys(e) {
    const i = TABS.findIndex(([id]) => id === this.tab);
    let next;
    if (e.key === 'ArrowRight') next = (i + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (i + TABS.length - 1) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    else return;
    e.preventDefault();
    this.#selectTab(TABS[next][0]);
    this.querySelector(`#tab-${TABS[next][0]}`).focus();
  }

  #selectTab(id, push = true) {
    this.tab = id;
    for (const [t] of TABS) {
      const tab = this.querySelector(`#tab-${t}`);
      tab.setAttribute('aria-selected', String(t === id));
      tab.tabIndex = t === id ? 0 : -1;
      this.querySelector(`#panel-${t}`).hidden = t !== id;
    }
    if (push) history.replaceState(null, '', `#${id}`);
    if (id === 'history') void this.#loadHistory();
    if (id === 'tasks') this.#renderTasks();
  }

  #renderAgents() {
    const select = this.querySelector('#agent-select');
    select.replaceChildren(...(this.agents.length === 0 ? [h('option', { value: '' }, '(none yet)')] : this.agents.map((a) =>
      h('option', { value: a.id }, `${a.url} (${a.protocol}${a.auth ? ', token' : ''}${a.webhookJwks ? ', JWKS' : ''})`))));
    if (this.agentId) select.value = this.agentId;
    this.querySelector('#add-agent').open = this.agents.length === 0;
  }

  async #addAgent(e) {
    e?.preventDefault();
    const url = this.querySelector('#agent-url').value.trim();
    const protocol = this.querySelector('#agent-protocol').value;
    const auth = this.querySelector('#agent-auth').value;
    const webhookJwks = this.querySelector('#agent-jwks').value.trim();
    await this.#addAgentUrl(url, protocol, auth, webhookJwks);
  }

  async #addAgentUrl(url, protocol, auth = '', webhookJwks = '') {
    const error = this.querySelector('#agent-error');
    error.textContent = '';
    try {
      const agent = await api('POST', '/api/agents', { url, protocol, ...(auth ? { auth } : {}), ...(webhookJwks ? { webhookJwks } : {}) });
      this.querySelector('#agent-auth').value = '';
      if (!this.agents.some((a) => a.id === agent.id)) this.agents.push(agent);
      this.#renderAgents();
      await this.#selectAgent(agent.id);
      this.#selectTab('discover');
    } catch (err) {
      error.textContent = err.message;
    }
  }

  async #selectAgent(id) {
    this.agentId = id;
    this.querySelector('#agent-select').value = id;
    this.querySelector('#checks').replaceChildren();
    await this.#discover(false);
  }

  get agent() {
    return this.agents.find((a) => a.id === this.agentId);
  }

  async #discover(again) {
    if (!this.agentId) return;
    const box = this.querySelector('#discovery');
    let d = again ? undefined : this.discoveries.get(this.agentId);
    if (!d) {
      box.replaceChildren(h('p', { class: 'hint' }, `Discovering ${this.agent.url}…`));
      try {
        d = await api('POST', `/api/agents/${this.agentId}/discover`);
      } catch (err) {
        box.replaceChildren(h('p', { class: 'bad' }, err.message));
        return;
      }
      this.discoveries.set(this.agentId, d);
    }
    box.replaceChildren(discoveryView(d, {
      addAgent: (url, protocol) => this.#addAgentUrl(url, protocol),
      pickTool: (name) => {
        this.#selectTab('call');
        this.querySelector('#tool-select').value = name;
        void this.#loadSchema();
        this.querySelector('#tool-select').focus();
      },
    }));
    this.#renderTools(d);
  }

  #renderTools(d) {
    const select = this.querySelector('#tool-select');
    const previous = select.value;
    const names = d.tools.map((t) => t.name).filter((n) => n !== '(tools unavailable)');
    select.replaceChildren(...names.map((n) => h('option', { value: n }, n)));
    const pick = names.includes(previous) ? previous : names.includes('get_products') ? 'get_products' : names[0];
    if (pick) {
      select.value = pick;
      void this.#loadSchema();
    }
    this.querySelector('#opt-mcp-task').disabled = d.protocol !== 'mcp';
  }

  async #loadSchema(value) {
    const tool = this.querySelector('#tool-select').value;
    if (!tool || !this.agentId) return;
    const info = this.querySelector('#schema-info');
    const form = this.querySelector('#schema-form');
    const n = ++this.#schemaLoad;
    info.textContent = 'loading the schema…';
    form.dataset.tool = '';
    let view;
    try {
      view = await api('GET', `/api/agents/${this.agentId}/schema?tool=${encodeURIComponent(tool)}`);
    } catch (err) {
      info.textContent = err.message;
      return;
    }
    if (n !== this.#schemaLoad) return; // another tool was picked meanwhile
    this.schemaView = view;
    const current = value ?? {};
    info.textContent = view.schema
      ? `AdCP ${view.version} request schema${view.mutating ? ' · the client adds idempotency_key' : ''} · adcp_version added by the client`
      : view.problem;
    form.setSchema(view, current);
    this.querySelector('#raw-json').value = JSON.stringify(current, null, 2);
    if (!view.schema) this.#switchMode('json');
    this.querySelector('#issues').replaceChildren();
    form.dataset.tool = tool;
  }

  #mode() {
    return this.querySelector('input[name="mode"]:checked').value;
  }

  #switchMode(mode) {
    const form = this.querySelector('#schema-form');
    const raw = this.querySelector('#raw-json');
    if (mode === 'json') raw.value = JSON.stringify(form.value, null, 2);
    else {
      let value;
      try {
        value = JSON.parse(raw.value || '{}');
      } catch {
        value = form.value;
      }
      if (this.schemaView?.schema) form.setSchema(this.schemaView, value);
    }
    this.querySelector(`input[name="mode"][value="${mode}"]`).checked = true;
    form.hidden = mode !== 'form';
    this.querySelector('#json-editor').hidden = mode !== 'json';
    this.#liveValidate();
  }

  /** The arguments as the form or the JSON editor holds them; `{ error }` for JSON that does not parse. */
  #args() {
    if (this.#mode() === 'form') return { args: this.querySelector('#schema-form').value };
    const text = this.querySelector('#raw-json').value.trim();
    try {
      const args = JSON.parse(text || '{}');
      if (args === null || typeof args !== 'object' || Array.isArray(args)) return { error: 'the arguments must be a JSON object' };
      return { args };
    } catch (err) {
      return { error: `not JSON: ${err.message}` };
    }
  }

  #liveValidate() {
    clearTimeout(this.#validateTimer);
    this.#validateTimer = setTimeout(() => void this.#validate(), 250);
  }

  async #validate() {
    const tool = this.querySelector('#tool-select').value;
    if (!tool || !this.agentId) return;
    const box = this.querySelector('#issues');
    const { args, error } = this.#args();
    if (error) {
      box.replaceChildren(h('p', { class: 'bad' }, error));
      return;
    }
    const n = ++this.#validation;
    let checked;
    try {
      checked = await api('POST', `/api/agents/${this.agentId}/validate`, { tool, args });
    } catch (err) {
      box.replaceChildren(h('p', { class: 'bad' }, err.message));
      return;
    }
    if (n !== this.#validation) return;
    this.#showIssues(checked);
  }

  #showIssues(checked) {
    const box = this.querySelector('#issues');
    const form = this.querySelector('#schema-form');
    if (checked.ok) {
      form.showIssues([]);
      box.replaceChildren(checked.skipped ? h('p', { class: 'hint' }, `Not checked: ${checked.skipped}`)
        : h('p', { class: 'ok' }, `✓ Valid against the AdCP ${checked.release} request schema`));
      return;
    }
    if (this.#mode() === 'form') form.showIssues(checked.issues);
    box.replaceChildren(h('p', { class: 'bad' }, `${checked.issues.length} issue${checked.issues.length === 1 ? '' : 's'} against the AdCP ${checked.release} request schema:`),
      issueList(checked.issues, (pointer) => this.#mode() === 'form' ? form.focusPointer(pointer) : this.querySelector('#raw-json').focus()));
  }

  async #send(e) {
    e.preventDefault();
    const tool = this.querySelector('#tool-select').value;
    const { args, error } = this.#args();
    const state = this.querySelector('#send-state');
    if (!tool) return;
    if (error) {
      state.textContent = error;
      return;
    }
    const button = this.querySelector('#send');
    button.disabled = true;
    state.textContent = `Calling ${tool}…`;
    try {
      const call = await api('POST', '/api/calls', {
        agentId: this.agentId,
        tool,
        args,
        webhook: this.querySelector('#opt-webhook').checked,
        mcpTask: this.querySelector('#opt-mcp-task').checked,
        force: this.querySelector('#opt-force').checked,
        ...(this.continueOf ? { continueOf: this.continueOf } : {}),
      });
      this.continueOf = undefined;
      this.querySelector('#continue-note').hidden = true;
      this.calls.set(call.id, call);
      state.textContent = call.invalid ? 'Not sent: fix the fields marked below.' : `${tool}: ${statusOf(call)}`;
      if (call.invalid) this.#showIssues(call.invalid);
      this.#showCall(call);
    } catch (err) {
      state.textContent = err.message;
    } finally {
      button.disabled = false;
    }
  }

  #actions() {
    return {
      cancel: async (id) => {
        const call = await api('POST', `/api/calls/${id}/cancel`);
        this.#update(call);
      },
      continueCall: (call) => {
        this.continueOf = call.id;
        this.#selectTab('call');
        const note = this.querySelector('#continue-note');
        note.hidden = false;
        note.textContent = `Answering the input-required task of ${call.tool} (${time(call.at)}): edit the arguments and Send.`;
        this.querySelector('#tool-select').value = call.tool;
        void this.#loadSchema(call.args);
      },
    };
  }

  #showCall(call) {
    this.querySelector('#call-result').replaceChildren(callView(call, this.#actions()));
    this.#renderTasks();
  }

  /** A call changed (live stream): every place it is shown is redrawn, keeping open sections open. */
  #update(call) {
    this.calls.set(call.id, call);
    for (const old of this.querySelectorAll(`article.call[data-call="${CSS.escape(call.id)}"]`)) {
      const open = [...old.querySelectorAll('details')].map((d) => d.open);
      const focused = old.contains(document.activeElement) ? document.activeElement.textContent : undefined;
      const fresh = callView(call, this.#actions());
      [...fresh.querySelectorAll('details')].forEach((d, i) => {
        if (open[i] !== undefined) d.open = open[i];
      });
      old.replaceWith(fresh);
      if (focused) [...fresh.querySelectorAll('button, summary')].find((b) => b.textContent === focused)?.focus();
    }
    if (this.tab === 'tasks' && !this.querySelector(`#task-list article.call[data-call="${CSS.escape(call.id)}"]`)) this.#renderTasks();
  }

  #renderTasks() {
    const list = this.querySelector('#task-list');
    const tasks = [...this.calls.values()].filter((c) => c.following || c.events.length > 0 || c.webhooks.length > 0).reverse();
    list.replaceChildren(...(tasks.length === 0 ? [h('p', { class: 'hint' }, 'No tasks yet.')] : tasks.map((c) => callView(c, this.#actions()))));
  }

  #stream() {
    const events = new EventSource('/api/events');
    events.addEventListener('call', (e) => this.#update(JSON.parse(e.data).call));
    events.addEventListener('storyboard', (e) => {
      const event = JSON.parse(e.data);
      if (event.agentId !== this.agentId) return;
      this.querySelector('#storyboard-progress').textContent = event.total > 0 ? `${event.done}/${event.total} · ${event.line}` : event.line;
    });
    events.addEventListener('agent', (e) => {
      const { agent } = JSON.parse(e.data);
      if (!this.agents.some((a) => a.id === agent.id)) {
        this.agents.push(agent);
        this.#renderAgents();
      }
    });
  }

  async #runChecks() {
    const box = this.querySelector('#checks');
    if (!this.agentId) return;
    box.replaceChildren(h('p', { class: 'hint' }, 'Checking…'));
    try {
      const { checks } = await api('POST', `/api/agents/${this.agentId}/checks`);
      const counts = ['pass', 'warn', 'fail', 'skip'].map((v) => `${checks.filter((c) => c.verdict === v).length} ${v}`).join(', ');
      box.replaceChildren(h('p', {}, counts), checksView(checks));
    } catch (err) {
      box.replaceChildren(h('p', { class: 'bad' }, err.message));
    }
  }

  async #runStoryboards(e) {
    e.preventDefault();
    if (!this.agentId) return;
    const box = this.querySelector('#storyboards');
    const button = this.querySelector('#run-storyboards');
    const progress = this.querySelector('#storyboard-progress');
    const ids = this.querySelector('#storyboard-ids').value.split(/[\s,]+/).filter(Boolean);
    const checked = (id) => this.querySelector(`#${id}`).checked;
    const brandJsonUrl = this.querySelector('#sb-brand-json').value.trim();
    const budget = this.querySelector('#sb-budget').value.trim();
    const signingVectors = this.querySelector('#sb-signing-vectors').value.trim();
    const request = {
      ...(ids.length ? { ids } : {}),
      ...(checked('sb-webhooks') ? {} : { webhooks: false }),
      ...(checked('sb-allow-http') ? { allowHttp: true } : {}),
      ...(checked('sb-rate-limit-trip') ? { rateLimitTrip: true } : {}),
      ...(checked('sb-seeded-state') ? { seededState: true } : {}),
      ...(brandJsonUrl ? { brandJsonUrl } : {}),
      ...(budget ? { budgetSeconds: Number(budget) } : {}),
      ...(signingVectors ? { signingVectors } : {}),
    };
    const used = [
      request.webhooks === false ? 'no webhook receiver' : null,
      request.allowHttp ? 'http and local URLs allowed' : null,
      request.rateLimitTrip ? 'rate-limit trip' : null,
      request.seededState ? 'seeded state' : null,
      brandJsonUrl ? `brand.json ${brandJsonUrl}` : null,
      budget ? `budget ${budget} s` : null,
      signingVectors ? `signing vectors ${signingVectors}` : null,
    ].filter(Boolean);
    button.disabled = true;
    box.replaceChildren();
    progress.textContent = 'Discovering the agent and selecting the storyboards…';
    try {
      const report = await api('POST', `/api/agents/${this.agentId}/storyboards`, request);
      const c = report.counts.storyboards;
      progress.textContent = `Done in ${(report.duration_ms / 1000).toFixed(1)} s: ${c.passed} passed, ${c.failed} failed, ${c.not_applicable} not applicable, ${c.skipped} skipped, ${c.harness_fault} harness faults.`;
      box.replaceChildren(h('p', { class: 'hint', id: 'storyboard-options-used' }, `Run options: ${used.length ? used.join(' · ') : 'the defaults'}.`), storyboardReport(report));
    } catch (err) {
      progress.textContent = '';
      box.replaceChildren(h('p', { class: 'bad' }, err.message));
    } finally {
      button.disabled = false;
    }
  }

  async #loadHistory() {
    const { calls, path } = await api('GET', '/api/history');
    this.querySelector('#history-where').textContent = path === ':memory:' ? 'Kept in memory only (--no-history).' : `Kept in ${path}.`;
    this.#renderHistory(calls, (id) => api('GET', `/api/history/${id}`).then((e) => e.record));
  }

  #renderHistory(calls, load) {
    const list = this.querySelector('#history-list');
    list.replaceChildren(...(calls.length === 0 ? [h('li', { class: 'hint' }, 'No calls yet.')] : calls.map((c) => h('li', {},
      h('button', { type: 'button', class: 'link', onclick: async () => {
        const record = await load(c.id);
        this.querySelector('#history-detail').replaceChildren(callView(record, {}));
      } }, h('time', {}, `${new Date(c.at).toLocaleDateString()} ${time(c.at)}`), ' ', h('code', {}, c.tool), ' ', badge(c.status), ' ', h('span', { class: 'hint' }, c.agentUrl))))));
  }

  async #openExport(e) {
    const file = e.target.files?.[0];
    if (!file) return;
    const where = this.querySelector('#history-where');
    try {
      const doc = JSON.parse(await file.text());
      if (doc?.format !== 'adcp-inspect-history' || !Array.isArray(doc.calls)) throw new Error('not an adcp inspect export');
      where.textContent = `Showing ${file.name} (exported ${doc.exportedAt}), read only.`;
      const byId = new Map(doc.calls.map((c) => [c.id, c.record]));
      this.#renderHistory(doc.calls, async (id) => byId.get(id));
    } catch (err) {
      where.textContent = `Could not open ${file.name}: ${err.message}`;
    }
  }
}

customElements.define('adcp-inspector', AdcpInspector);
