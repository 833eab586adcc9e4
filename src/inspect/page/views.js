// Renders what the API returns: a call (result, AdCP body, task, webhooks, wire), a discovery,
// check verdicts. Text only, never HTML from an agent.
import { badge, h, jsonBlock, time } from './dom.js';

/** One call and everything that followed it. `actions`: { cancel(id), continueCall(call) }. */
export function callView(call, actions = {}) {
  const result = call.final ?? call.result;
  const status = statusOf(call);
  const head = h('header', { class: 'call-head' },
    h('h3', {}, call.tool, ' ', badge(status)),
    h('p', { class: 'meta' }, `${time(call.at)} · ${call.protocol.toUpperCase()} · ${call.agentUrl}`,
      call.release ? ` · AdCP ${call.release}` : '', call.parent ? ' · continues an earlier call' : ''));
  const parts = [head];

  if (call.invalid) {
    parts.push(h('section', { class: 'invalid', 'aria-label': 'request validation' },
      h('h4', {}, `Not sent: the arguments do not match the AdCP ${call.invalid.release ?? ''} request schema`),
      issueList(call.invalid.issues)));
  }
  if (call.failure) {
    parts.push(h('section', { class: 'failure' }, h('h4', {}, 'Could not talk to the agent'),
      h('p', {}, h('code', {}, call.failure.code), ' ', call.failure.message)));
  }
  if (result) parts.push(resultSection(result, call.final ? 'Final result' : 'Result'));
  if (call.final && call.result) parts.push(h('details', {}, h('summary', {}, 'First answer'), resultSection(call.result, 'First answer')));
  if (call.events.length > 0 || call.following) parts.push(taskSection(call, actions));
  if (call.webhookUrl || call.webhooks.length > 0) parts.push(webhookSection(call));
  if (result?.status === 'input-required' && actions.continueCall) {
    parts.push(h('p', {}, h('button', { type: 'button', onclick: () => actions.continueCall(call) },
      'Answer the input-required task'), ' ', h('span', { class: 'hint' },
      call.protocol === 'a2a' ? 'sends the arguments again in the same A2A task' : 'calls again with edited arguments')));
  }
  parts.push(h('details', { class: 'args' }, h('summary', {}, 'Arguments sent'), jsonBlock(call.args, 'arguments')));
  parts.push(wireSection(call.exchanges));
  return h('article', { class: 'call', 'data-call': call.id, 'data-status': status }, ...parts);
}

export function statusOf(call) {
  if (call.invalid) return 'invalid';
  if (call.failure) return 'unreachable';
  if (call.final?.status) return call.final.status;
  if (call.following) {
    const last = [...call.events].reverse().find((e) => e.status);
    if (last) return last.status;
  }
  return call.result?.status ?? 'sending';
}

function resultSection(r, title) {
  const rows = [['status', badge(r.status)]];
  if (r.taskId) rows.push(['AdCP task_id', h('code', {}, r.taskId)]);
  if (r.transportTaskId) rows.push([r.protocol === 'a2a' ? 'A2A task id' : 'MCP task id', h('code', {}, r.transportTaskId)]);
  if (r.contextId) rows.push(['A2A context id', h('code', {}, r.contextId)]);
  if (r.message) rows.push(['message', r.message]);
  if (r.operation) rows.push(['operation', h('code', {}, r.operation.operationId)]);
  const out = [h('h4', {}, title), table(rows)];
  if (r.error) {
    const e = r.error;
    out.push(h('div', { class: 'error-box', role: 'group', 'aria-label': 'error' },
      h('p', {}, h('strong', {}, e.code ?? 'error'), ' ', e.adcpError?.message ?? ''),
      h('p', {}, 'Recovery: ', h('strong', {}, e.recovery ?? '?'), ' → ', e.action ?? '?',
        e.retryDelaySeconds !== null && e.retryDelaySeconds !== undefined ? ` (retry after ${e.retryDelaySeconds} s)` : ''),
      e.adcpError?.field ? h('p', {}, 'Field: ', h('code', {}, e.adcpError.field)) : null));
  }
  if (r.validation) {
    out.push(r.validation.ok
      ? h('p', { class: 'ok' }, `✓ The answer matches the AdCP ${r.validation.release} schema ${r.validation.schema ?? ''}`)
      : h('div', { class: 'invalid' }, h('p', {}, `✗ The answer does not match the AdCP ${r.validation.release} schema ${r.validation.schema ?? ''}`), issueList(r.validation.issues)));
  }
  out.push(h('details', { open: true }, h('summary', {}, 'AdCP body'), jsonBlock(r.data, 'AdCP body')));
  out.push(h('details', {}, h('summary', {}, 'Raw envelope'), jsonBlock(r.raw, 'raw envelope')));
  return h('section', { class: 'result' }, ...out);
}

function taskSection(call, actions) {
  const list = h('ol', { class: 'timeline' }, call.events.map((e) =>
    h('li', {}, h('time', {}, time(e.at)), ' ', e.status ? badge(e.status) : h('span', { class: 'badge' }, e.kind), ' ',
      e.kind === 'final' ? 'final' : e.kind === 'cancel' ? 'cancel' : '', e.message ? ` ${e.message}` : '')));
  return h('section', { class: 'task', 'aria-label': 'task' },
    h('h4', {}, call.following ? 'Following the task…' : 'Task'),
    list,
    call.following && actions.cancel
      ? h('button', { type: 'button', onclick: () => actions.cancel(call.id) }, 'Cancel the task')
      : null);
}

function webhookSection(call) {
  return h('section', { class: 'webhooks', 'aria-label': 'webhooks' },
    h('h4', {}, `Webhooks (${call.webhooks.length})`),
    call.webhookUrl ? h('p', { class: 'hint' }, 'Registered: ', h('code', {}, call.webhookUrl),
      call.webhookScheme === 'rfc9421' ? ' (RFC 9421 signatures, verified against the agent\u2019s JWKS)' : ' (legacy HMAC-SHA256, a secret made for this run)') : null,
    call.webhooks.length === 0 ? h('p', { class: 'hint' }, 'None yet.') : h('ol', { class: 'deliveries' }, call.webhooks.map((w) =>
      h('li', { class: `delivery ${w.outcome}` },
        h('time', {}, time(w.at)), ' ',
        h('span', { class: `badge outcome-${w.outcome}` }, w.outcome === 'accepted' ? `verified (${w.scheme}${w.keyid ? `, key ${w.keyid}` : ''})` : w.outcome), ' ',
        w.status ? badge(w.status) : null,
        w.reason ? ` ${w.reason}${w.detail ? `: ${w.detail}` : ''}` : '',
        w.payload ? h('details', {}, h('summary', {}, 'payload'), jsonBlock(w.payload, 'webhook payload')) : null))));
}

/** Every HTTP request and answer of the call, SSE events included, secrets masked. */
export function wireSection(exchanges) {
  return h('details', { class: 'wire' }, h('summary', {}, `Wire exchange (${exchanges.length} HTTP requests)`),
    h('ol', {}, exchanges.map((x) => h('li', {},
      h('details', {},
        h('summary', {}, h('code', {}, `${x.method} ${x.url}`), ' → ',
          x.status !== undefined ? h('strong', {}, String(x.status)) : h('em', {}, x.error ?? 'pending'),
          x.ms !== undefined ? ` (${x.ms} ms)` : ''),
        h('h5', {}, 'Request headers'), jsonBlock(x.requestHeaders, 'request headers'),
        x.requestBody !== undefined ? [h('h5', {}, 'Request body'), textBlock(x.requestBody)] : null,
        x.responseHeaders ? [h('h5', {}, 'Response headers'), jsonBlock(x.responseHeaders, 'response headers')] : null,
        x.responseBody !== undefined ? [h('h5', {}, 'Response body'), textBlock(x.responseBody)] : null,
        x.truncated ? h('p', { class: 'hint' }, 'cut at 256 KiB') : null)))));
}

function textBlock(text) {
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // SSE or other text: as it came
  }
  return h('pre', { class: 'json', tabindex: '0' }, shown);
}

export function issueList(issues, onPick) {
  return h('ul', { class: 'issues' }, issues.map((i) => h('li', {},
    onPick ? h('button', { type: 'button', class: 'link', onclick: () => onPick(i.pointer) }, h('code', {}, i.pointer || '(root)'))
      : h('code', {}, i.pointer || '(root)'),
    ` ${i.keyword}: ${i.message}`)));
}

export function table(rows) {
  return h('table', { class: 'kv' }, h('tbody', {}, rows.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v)))));
}

export function discoveryView(d, actions = {}) {
  if (d.problem) {
    return h('section', { class: 'discovery' }, h('div', { class: 'failure' }, h('h3', {}, 'Nothing answered'), h('p', {}, d.problem)), wireSection(d.exchanges));
  }
  const cards = h('section', {}, h('h3', {}, 'Cards'), h('ul', { class: 'cards' }, d.cards.map((c) => h('li', {},
    h('strong', {}, c.kind), ' ',
    c.card ? [`“${c.name ?? '?'}”`, c.version ? ` v${c.version}` : '', ' at ', h('code', {}, c.url ?? '?'),
      c.kind === 'A2A agent card' && d.protocol === 'mcp' && actions.addAgent
        ? [' ', h('button', { type: 'button', class: 'small', onclick: () => actions.addAgent(c.url, 'a2a') }, 'Inspect over A2A')] : null,
      c.kind === 'MCP server card' && d.protocol === 'a2a' && actions.addAgent && c.card?.remotes?.[0]?.url
        ? [' ', h('button', { type: 'button', class: 'small', onclick: () => actions.addAgent(c.card.remotes[0].url, 'mcp') }, 'Inspect over MCP')] : null,
      h('details', {}, h('summary', {}, 'card'), jsonBlock(c.card, c.kind))]
      : h('span', { class: 'hint' }, c.problem ?? 'none found')))));
  const facts = [['wire', d.protocol?.toUpperCase() ?? '?']];
  facts.push(['AdCP release', d.release ? h('strong', {}, d.release) : h('span', { class: 'bad' }, 'none in common')]);
  facts.push(['agent lists', d.theirReleases.join(', ') || '(nothing)']);
  if (d.mcp) facts.push(['MCP era', `${d.mcp.era} (${d.mcp.protocolVersion ?? '?'})${d.mcp.server ? ` · ${d.mcp.server.name} ${d.mcp.server.version ?? ''}` : ''}`]);
  if (d.mcp) facts.push(['MCP extensions', d.mcp.extensions.join(', ') || 'none']);
  if (d.mcpProblem) facts.push(['MCP', h('span', { class: 'bad' }, d.mcpProblem)]);
  if (d.a2aWire) facts.push(['A2A wire', d.a2aWire]);
  if (d.a2aProfile) facts.push(['A2A profile v3', d.a2aProfile.ok ? h('span', { class: 'ok' }, `✓ conformant${d.a2aProfile.required ? ', required' : ''}`) : h('span', { class: 'bad' }, `✗ ${d.a2aProfile.code}: ${d.a2aProfile.message}`)]);
  facts.push(['auth', [
    d.auth.sent ? 'a bearer token is sent (kept in the inspector process)' : 'no credentials sent',
    d.auth.declared.length ? ` · the card declares ${d.auth.declared.join(', ')}` : '',
    d.auth.refused.length ? h('span', { class: 'bad' }, ` · refused: ${d.auth.refused.join('; ')}`) : ' · nothing was refused',
  ]]);
  const tools = h('section', {}, h('h3', {}, `Tools (${d.tools.length})`), d.toolsProblem ? h('p', { class: 'bad' }, d.toolsProblem) : null,
    h('table', { class: 'tools' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'tool'), h('th', { scope: 'col' }, 'MCP task support'), h('th', { scope: 'col' }, ''))),
      h('tbody', {}, d.tools.map((t) => h('tr', {},
        h('td', {}, h('code', {}, t.name)),
        h('td', {}, t.taskSupport ?? (d.protocol === 'a2a' ? '(A2A: every call is a task)' : 'none'),
          t.expectedTaskSupport && (t.taskSupport ?? 'forbidden') !== t.expectedTaskSupport ? h('span', { class: 'bad' }, ` (the guide says ${t.expectedTaskSupport})`) : null),
        h('td', {}, actions.pickTool ? h('button', { type: 'button', class: 'small', onclick: () => actions.pickTool(t.name) }, `Call ${t.name}`) : null))))));
  return h('section', { class: 'discovery' },
    h('section', {}, h('h3', {}, 'Agent'), table(facts)),
    cards,
    d.capabilities ? h('section', {}, h('h3', {}, 'get_adcp_capabilities'), h('details', {}, h('summary', {}, 'answer'), jsonBlock(d.capabilities, 'capabilities')))
      : h('p', { class: 'bad' }, d.capabilitiesProblem ?? ''),
    tools,
    wireSection(d.exchanges));
}

export function checksView(checks) {
  return h('table', { class: 'checks' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'verdict'), h('th', { scope: 'col' }, 'check'), h('th', { scope: 'col' }, 'why'), h('th', { scope: 'col' }, 'spec'))),
    h('tbody', {}, checks.map((c) => h('tr', { 'data-check': c.id },
      h('td', {}, h('span', { class: `badge verdict-${c.verdict}` }, c.verdict)),
      h('td', {}, c.title),
      h('td', {}, c.detail),
      h('td', {}, h('code', {}, c.spec))))));
}

const VERDICT = { passed: 'pass', failed: 'fail', not_applicable: 'skip', skipped: 'skip', harness_fault: 'warn' };
const VERDICT_TEXT = { passed: 'passed', failed: 'failed', not_applicable: 'not applicable', skipped: 'skipped', harness_fault: 'harness fault' };

function verdictBadge(verdict) {
  return h('span', { class: `badge verdict-${VERDICT[verdict] ?? 'skip'}` }, VERDICT_TEXT[verdict] ?? verdict);
}

/** A storyboard run: each storyboard with its steps, every step that did not pass explained. */
export function storyboardReport(report) {
  return h('section', { class: 'storyboards', 'aria-label': 'storyboard report' },
    h('p', { class: 'hint' }, `Compliance ${report.release} (speaking AdCP ${report.adcp_version}) over ${report.protocol.toUpperCase()} · ${report.compliance_source}`),
    report.cut_short ? h('p', { class: 'bad' }, `Cut short: ${report.cut_short}`) : null,
    report.notices.length ? h('ul', { class: 'notices' }, report.notices.map((n) => h('li', { class: 'hint' }, n))) : null,
    h('ol', { class: 'storyboard-list' }, report.storyboards.map((s) => h('li', { 'data-storyboard': s.id, 'data-verdict': s.verdict },
      h('details', { open: s.verdict === 'failed' || s.verdict === 'harness_fault' },
        h('summary', {}, verdictBadge(s.verdict), ' ', h('code', {}, s.id), ` ${s.title}`,
          h('span', { class: 'hint' }, ` · ${s.selected_because}`)),
        s.detail ? h('p', {}, s.detail) : null,
        s.cut_short ? h('p', { class: 'bad' }, `Cut short: ${s.cut_short}`) : null,
        s.steps.length ? h('ol', { class: 'steps' }, s.steps.map((step) => stepView(step))) : null)))));
}

function stepView(step) {
  const explained = step.verdict !== 'passed';
  const rows = [];
  if (step.skip) rows.push(['why', `${step.skip.reason}: ${step.skip.detail}`]);
  if (step.cause) rows.push(['caused by', h('code', {}, step.cause)]);
  if (step.fault) rows.push(['fault', step.fault]);
  if (step.error) rows.push(['error', step.error]);
  const failed = step.validations.filter((v) => v.verdict === 'failed');
  return h('li', { class: 'step', 'data-step': `${step.phase_id}/${step.step_id}`, 'data-verdict': step.verdict },
    h('details', { open: step.verdict === 'failed' },
      h('summary', {}, verdictBadge(step.verdict), ' ', h('code', {}, `${step.phase_id}/${step.step_id}`), ` ${step.title}`,
        h('span', { class: 'hint' }, ` (${step.task || 'runner'})${step.optional ? ' [optional phase]' : ''}`)),
      rows.length ? table(rows) : null,
      failed.length ? h('table', { class: 'validations' },
        h('thead', {}, h('tr', {}, ['check', 'pointer', 'expected', 'actual', 'why'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, failed.map((v) => h('tr', { class: v.severity === 'advisory' ? 'advisory' : '' },
          h('td', {}, h('code', {}, v.check), v.severity === 'advisory' ? h('span', { class: 'hint' }, ' advisory') : null, h('br'), h('span', { class: 'hint' }, v.description)),
          h('td', {}, h('code', {}, v.json_pointer ?? '(none)')),
          h('td', {}, h('code', {}, short(v.expected))),
          h('td', {}, h('code', {}, short(v.actual))),
          h('td', {}, v.note ?? ''))))) : null,
      explained && step.request ? h('details', {}, h('summary', {}, `Request: ${step.request.tool}`), jsonBlock(step.request.args, 'storyboard request')) : null,
      explained && step.response ? h('details', {}, h('summary', {}, `Answer: ${step.response.status}${step.response.http_status ? ` (HTTP ${step.response.http_status})` : ''}`), jsonBlock(step.response.body ?? step.response, 'storyboard answer')) : null,
      h('p', { class: 'source hint' }, 'Source: ', h('code', {}, `${step.source.storyboard} ${step.source.location}`),
        step.source.doc_ref ? [' · spec ', h('code', {}, step.source.doc_ref)] : null),
      explained && step.source.expected_text ? h('p', { class: 'expects' }, h('strong', {}, 'The storyboard expects: '), step.source.expected_text) : null));
}

function short(value) {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
