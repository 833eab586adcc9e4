import {
  NO_CREDENTIALS,
  type RunReport,
  type StepOutcome,
  type StoryboardOutcome,
  type ValidationOutcome,
  type Verdict,
} from './types.js';

/**
 * The three renderings of a run: a terminal summary, JUnit XML for CI, and one self-contained
 * HTML file. Everything the agent sent is hostile text: it is escaped (HTML, XML) or stripped of
 * control characters (terminal), and cut to a readable length.
 */

const MARK: Record<Verdict, string> = {
  passed: 'ok  ',
  failed: 'FAIL',
  not_applicable: 'n/a ',
  skipped: 'skip',
  harness_fault: 'HARN',
};
const LABEL: Record<Verdict, string> = {
  passed: 'passed',
  failed: 'failed (agent)',
  not_applicable: 'not applicable',
  skipped: 'skipped',
  harness_fault: 'harness fault (ours or the environment)',
};

/** Strips terminal control sequences and cuts to `max` characters. */
export function plain(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}... (${clean.length} chars)` : clean;
}

/** One line for a storyboard as it finishes (progress). */
export function progressLine(outcome: StoryboardOutcome, index: number, total: number): string {
  const counts = countSteps(outcome.steps);
  const why =
    outcome.verdict === 'not_applicable' || outcome.verdict === 'harness_fault'
      ? `: ${plain(outcome.detail ?? outcome.skip?.detail ?? outcome.steps.find((s) => s.fault !== undefined)?.fault ?? '', 160)}`
      : '';
  return `[${String(index + 1).padStart(String(total).length)}/${total}] ${MARK[outcome.verdict]} ${outcome.id} (${counts}, ${(outcome.duration_ms / 1000).toFixed(1)} s)${why}`;
}

function countSteps(steps: StepOutcome[]): string {
  const c = { passed: 0, failed: 0, not_applicable: 0, skipped: 0, harness_fault: 0 };
  for (const s of steps) c[s.verdict] += 1;
  const parts = [`${c.passed} passed`];
  if (c.failed > 0) parts.push(`${c.failed} failed`);
  if (c.skipped > 0) parts.push(`${c.skipped} skipped`);
  if (c.not_applicable > 0) parts.push(`${c.not_applicable} n/a`);
  if (c.harness_fault > 0) parts.push(`${c.harness_fault} harness`);
  return parts.join(', ');
}

function explainValidation(v: ValidationOutcome): string[] {
  const lines = [
    `      ${v.verdict === 'failed' ? 'x' : '-'} ${v.check}${v.path === undefined ? '' : ` ${v.path}`}: ${plain(v.description, 200)}`,
  ];
  if (v.json_pointer !== null) lines.push(`        at       ${plain(v.json_pointer, 200)}`);
  lines.push(
    `        expected ${plain(JSON.stringify(v.expected) ?? 'undefined', 300)}`,
    `        actual   ${plain(JSON.stringify(v.actual) ?? 'undefined', 300)}`,
  );
  if (v.note !== undefined) lines.push(`        note     ${plain(v.note, 700)}`);
  return lines;
}

/** What one step did and why it got its verdict, for the terminal. */
export function explainStep(step: StepOutcome): string[] {
  const lines = [
    `    ${MARK[step.verdict]} ${step.phase_id}/${step.step_id} (${step.task || 'runner'})${step.optional === true ? ' [optional phase]' : ''}`,
  ];
  if (step.skip !== undefined) lines.push(`      ${step.skip.reason}: ${plain(step.skip.detail, 400)}`);
  if (step.fault !== undefined) lines.push(`      ${plain(step.fault, 500)}`);
  if (step.error !== undefined) lines.push(`      ${plain(step.error, 500)}`);
  for (const v of step.validations) if (v.verdict === 'failed') lines.push(...explainValidation(v));
  if (step.verdict === 'failed') {
    if (step.request !== undefined)
      lines.push(
        `      request  ${plain(step.request.args, 400)}${step.request.auth === undefined ? '' : ` (auth: ${step.request.auth})`}`,
      );
    for (const b of step.built ?? []) lines.push(`      built    ${b.pointer} from ${plain(b.from, 200)}`);
    if (step.response !== undefined) lines.push(`      answer   ${plain(step.response, 400)}`);
    const src = step.source;
    lines.push(
      `      source   ${src.storyboard} ${src.location}${src.doc_ref === undefined ? '' : `, spec ${src.doc_ref}`}`,
    );
    if (src.expected_text !== undefined)
      lines.push(`      expects  ${plain(src.expected_text.replace(/\s+/g, ' '), 300)}`);
  }
  return lines;
}

/** The run's verdict in a sentence, the same in the terminal and the HTML report. */
export function verdictOf(report: RunReport): string {
  if (report.counts.storyboards.failed > 0) return 'the agent failed storyboards it must pass';
  if (report.cut_short !== undefined) return 'incomplete run';
  if (report.storyboards.some((s) => s.detail === NO_CREDENTIALS || s.steps.some((st) => st.fault === NO_CREDENTIALS)))
    return "not graded where the agent asked for credentials this run did not send: run again with the agent's token (--auth TOKEN)";
  const faults = report.counts.storyboards.harness_fault;
  if (faults > 0)
    return `nothing the agent owns failed, but ${faults} storyboard(s) were not fully graded (harness faults): read their faults`;
  return 'nothing the agent owns failed';
}

/** The terminal summary: every storyboard, every step that did not pass explained, the totals. */
export function renderSummary(report: RunReport, options: { verbose?: boolean } = {}): string {
  const out: string[] = [
    `adcp storyboard: ${plain(report.agent)} over ${report.protocol}, compliance ${report.release} (speaking AdCP ${report.adcp_version})`,
    `  suite: ${plain(report.compliance_source)}`,
  ];
  for (const notice of report.notices) out.push(`  note: ${plain(notice, 400)}`);
  out.push('');
  for (const s of report.storyboards) {
    out.push(`${MARK[s.verdict]} ${s.id} - ${plain(s.title, 100)} [${LABEL[s.verdict]}]`);
    if (s.detail !== undefined && (s.steps.length === 0 || s.verdict !== 'passed'))
      out.push(`    ${plain(s.detail, 400)}`);
    if (s.cut_short !== undefined) out.push(`    cut short: ${plain(s.cut_short)}`);
    const shown = s.steps.filter(
      (step) =>
        options.verbose === true ||
        step.verdict === 'failed' ||
        step.verdict === 'harness_fault' ||
        (step.verdict === 'skipped' && s.verdict === 'failed'),
    );
    for (const step of shown) out.push(...explainStep(step));
  }
  const sb = report.counts.storyboards;
  const st = report.counts.steps;
  out.push(
    '',
    `storyboards: ${sb.passed} passed, ${sb.failed} failed, ${sb.not_applicable} not applicable, ${sb.skipped} skipped, ${sb.harness_fault} harness faults`,
    `steps:       ${st.passed} passed, ${st.failed} failed, ${st.not_applicable} not applicable, ${st.skipped} skipped, ${st.harness_fault} harness faults`,
    `time:        ${(report.duration_ms / 1000).toFixed(1)} s`,
  );
  if (report.cut_short !== undefined)
    out.push(
      `CUT SHORT: ${plain(report.cut_short, 400)}${report.storyboards.length === 0 ? '' : ' (the storyboards not run are listed as harness faults)'}`,
    );
  out.push(`verdict: ${verdictOf(report)}`);
  return `${out.join('\n')}\n`;
}

// eslint-disable-next-line no-control-regex
const XML_BAD = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd]/gu;

function xml(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text
    .replace(XML_BAD, '?')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** JUnit XML: a testsuite per storyboard, a testcase per step (failure, skipped, or error for a harness fault). */
export function renderJunit(report: RunReport): string {
  const suites = report.storyboards.map((s) => {
    const steps = s.steps.length > 0 ? s.steps : [];
    const cases = steps.map((step) => {
      const name = `${step.phase_id}/${step.step_id}`;
      const detail = explainStep(step).join('\n');
      let body = '';
      if (step.verdict === 'failed') body = `<failure message="${xml(firstReason(step))}">${xml(detail)}</failure>`;
      else if (step.verdict === 'harness_fault')
        body = `<error message="${xml(step.fault ?? 'harness fault')}">${xml(detail)}</error>`;
      else if (step.verdict === 'skipped' || step.verdict === 'not_applicable')
        body = `<skipped message="${xml(`${step.verdict}: ${step.skip?.reason ?? ''} ${step.skip?.detail ?? ''}`)}"/>`;
      return `    <testcase classname="${xml(s.id)}" name="${xml(name)}" time="${(step.duration_ms / 1000).toFixed(3)}">${body}</testcase>`;
    });
    if (steps.length === 0) {
      const body =
        s.verdict === 'failed'
          ? `<failure message="${xml(s.detail ?? 'failed')}"/>`
          : s.verdict === 'harness_fault'
            ? `<error message="${xml(s.detail ?? 'harness fault')}"/>`
            : s.verdict === 'passed'
              ? ''
              : `<skipped message="${xml(`${s.verdict}: ${s.detail ?? ''}`)}"/>`;
      cases.push(`    <testcase classname="${xml(s.id)}" name="(storyboard)" time="0">${body}</testcase>`);
    }
    const count = (v: Verdict[]) =>
      steps.length > 0 ? steps.filter((x) => v.includes(x.verdict)).length : v.includes(s.verdict) ? 1 : 0;
    return `  <testsuite name="${xml(s.id)}" tests="${Math.max(1, steps.length)}" failures="${count(['failed'])}" errors="${count(['harness_fault'])}" skipped="${count(['skipped', 'not_applicable'])}" time="${(s.duration_ms / 1000).toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="adcp storyboard ${xml(report.release)} ${xml(report.agent)}" time="${(report.duration_ms / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

function firstReason(step: StepOutcome): string {
  const v = step.validations.find((x) => x.verdict === 'failed');
  if (v !== undefined)
    return `${v.check}${v.path === undefined ? '' : ` ${v.path}`}: expected ${plain(v.expected, 120)}, got ${plain(v.actual, 120)}`;
  return step.error ?? 'failed';
}

function html(value: unknown, max = 20_000): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  const cut = text.length > max ? `${text.slice(0, max)}\n... (${text.length} chars)` : text;
  return cut
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}h1{font-size:1.3em}table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left}
details{margin:4px 0;border-left:3px solid #ccc;padding-left:8px}summary{cursor:pointer}pre{background:#f6f6f6;padding:6px;overflow:auto;max-height:24em;white-space:pre-wrap}
.passed{border-color:#2a2}.failed{border-color:#c22}.not_applicable{border-color:#999}.skipped{border-color:#c90}.harness_fault{border-color:#83c}
.why{color:#555}.legend{color:#444;max-width:60em}.v-passed{color:#2a2}.v-failed{color:#c22;font-weight:bold}.v-not_applicable{color:#777}.v-skipped{color:#a70}.v-harness_fault{color:#83c;font-weight:bold}`;

function stepHtml(step: StepOutcome): string {
  const parts: string[] = [];
  if (step.skip !== undefined) parts.push(`<p>${html(step.skip.reason)}: ${html(step.skip.detail)}</p>`);
  if (step.fault !== undefined) parts.push(`<p>${html(step.fault)}</p>`);
  if (step.error !== undefined) parts.push(`<p>${html(step.error)}</p>`);
  if (step.validations.length > 0) {
    parts.push(
      '<table><tr><th>check</th><th>verdict</th><th>pointer</th><th>expected</th><th>actual</th><th>description</th></tr>',
    );
    for (const v of step.validations) {
      parts.push(
        `<tr><td>${html(v.check)}${v.path === undefined ? '' : `<br><code>${html(v.path)}</code>`}</td><td class="v-${v.verdict}">${html(v.verdict)}${v.severity === 'advisory' ? ' (advisory)' : ''}</td><td><code>${html(v.json_pointer ?? '')}</code></td><td><code>${html(v.expected, 2000)}</code></td><td><code>${html(v.actual, 2000)}</code></td><td>${html(v.description)}${v.note === undefined ? '' : `<br><i>${html(v.note)}</i>`}</td></tr>`,
      );
    }
    parts.push('</table>');
  }
  if (step.built !== undefined)
    parts.push(
      `<p>the runner's request builder supplied: ${step.built.map((b) => `<code>${html(b.pointer)}</code> from ${html(b.from)}`).join('; ')}</p>`,
    );
  if (step.request !== undefined)
    parts.push(
      `<details><summary>request sent (${html(step.request.tool)}${step.request.auth === undefined ? '' : `, auth ${html(step.request.auth)}`})</summary><pre>${html(step.request.args)}</pre></details>`,
    );
  if (step.response !== undefined)
    parts.push(
      `<details><summary>answer (${html(step.response.status)})</summary><pre>${html(step.response)}</pre></details>`,
    );
  const src = step.source;
  parts.push(
    `<p>source: <code>${html(src.storyboard)}</code> ${html(src.location)}${src.doc_ref === undefined ? '' : `, spec <code>${html(src.doc_ref)}</code>`}</p>`,
  );
  if (src.expected_text !== undefined) parts.push(`<p>the storyboard expects: ${html(src.expected_text)}</p>`);
  return `<details class="${step.verdict}"${step.verdict === 'failed' ? ' open' : ''}><summary><span class="v-${step.verdict}">${html(LABEL[step.verdict])}</span> ${html(step.phase_id)}/${html(step.step_id)} <code>${html(step.task)}</code> ${html(step.title)}</summary>${parts.join('\n')}</details>`;
}

/** Why a storyboard was not applicable or a harness fault, on its summary line (seen without opening it). */
function whyHtml(s: StoryboardOutcome): string {
  if (s.verdict !== 'not_applicable' && s.verdict !== 'harness_fault') return '';
  const why = s.detail ?? s.skip?.detail ?? s.steps.find((step) => step.fault !== undefined)?.fault;
  return why === undefined ? '' : `<br><small class="why">${html(why, 300)}</small>`;
}

function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** What each verdict asks of the seller (the README's table). */
const LEGEND = `<p class="legend"><span class="v-passed">passed</span>: nothing to do. <span class="v-failed">failed (agent)</span>: read the step: the request sent, the answer, the pointer, expected and actual, and the storyboard text it comes from. <span class="v-not_applicable">not applicable</span>: a gate said so (named beside it); nothing to do unless you meant to claim it. <span class="v-skipped">skipped</span>: fix the step it names. <span class="v-harness_fault">harness fault</span>: this runner or the environment (named beside it), never counted against the agent.</p>`;

/** One self-contained HTML file (no script, no external resource): every storyboard and step with its explanation. */
export function renderHtml(report: RunReport): string {
  const sb = report.counts.storyboards;
  const st = report.counts.steps;
  const rows = report.storyboards
    .map(
      (s) =>
        `<details class="${s.verdict}"${s.verdict === 'failed' ? ' open' : ''}><summary><span class="v-${s.verdict}">${html(LABEL[s.verdict])}</span> <b>${html(s.id)}</b> ${html(s.title)} <small>(${html(s.file)}; ${html(s.selected_because)}; ${(s.duration_ms / 1000).toFixed(1)} s, ${s.sessions} connection(s))</small>${whyHtml(s)}</summary>${s.detail === undefined ? '' : `<p>${html(s.detail)}</p>`}${s.cut_short === undefined ? '' : `<p class="v-harness_fault">cut short: ${html(s.cut_short)}</p>`}${s.steps.map(stepHtml).join('\n')}</details>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>adcp storyboard: ${html(report.agent)}</title><style>${CSS}</style></head>
<body><h1>adcp storyboard: ${html(report.agent)}</h1>
<p>over ${html(report.protocol)}, compliance ${html(report.release)} (speaking AdCP ${html(report.adcp_version)}), started ${html(report.started_at)}, ${(report.duration_ms / 1000).toFixed(1)} s<br>suite: <code>${html(report.compliance_source)}</code></p>
${report.cut_short === undefined ? '' : `<p class="v-harness_fault">CUT SHORT: ${html(report.cut_short)}</p>`}
${report.notices.map((n) => `<p>note: ${html(n)}</p>`).join('\n')}
<table><tr><th></th><th>passed</th><th>failed (agent)</th><th>not applicable</th><th>skipped</th><th>harness faults</th></tr>
<tr><th>storyboards</th><td>${sb.passed}</td><td>${sb.failed}</td><td>${sb.not_applicable}</td><td>${sb.skipped}</td><td>${sb.harness_fault}</td></tr>
<tr><th>steps</th><td>${st.passed}</td><td>${st.failed}</td><td>${st.not_applicable}</td><td>${st.skipped}</td><td>${st.harness_fault}</td></tr></table>
<p><b>${html(sentence(verdictOf(report)))}</b></p>
${LEGEND}
${rows}
</body></html>
`;
}
