/**
 * New-keyid admission pressure (security.md "Webhook replay dedup sizing"; webhook-verifier-
 * tuning.md): verifiers MUST track how many previously unseen keyids start inserting replay-cache
 * entries per 5-minute window, and SHOULD alarm on any of four clauses, naming the clause:
 * (a) above `shortRatio` x the 24 h moving average; (b) above `mediumRatio` x the 30-day P95;
 * (c) above `longRatio` x the 90-day P99; (d) above max(`floor`, `proportion` x keyids seen in 30 days).
 * Thresholds are options; unset ones start at the guide's values jittered log-uniformly over
 * [0.5x, 2x] (so a fleet is not one published oracle), and `threshold_tuning_overdue` is raised
 * once a default is still in use 30 days after the first admission.
 */
export interface AdmissionThresholds {
  shortRatio: number;
  mediumRatio: number;
  longRatio: number;
  floor: number;
  proportion: number;
}

export type AdmissionAlarm =
  | {
      kind: 'admission_pressure';
      clause: 'a' | 'b' | 'c' | 'd';
      newKeyids: number;
      threshold: number;
      windowStart: number;
    }
  | { kind: 'threshold_tuning_overdue'; defaults: Array<keyof AdmissionThresholds> };

const WINDOW = 300;
const DAY_WINDOWS = 288;
const STARTING: AdmissionThresholds = { shortRatio: 3, mediumRatio: 2, longRatio: 1.5, floor: 20, proportion: 0.1 };

export class AdmissionMonitor {
  readonly #thresholds: AdmissionThresholds;
  readonly #defaults: Array<keyof AdmissionThresholds>;
  readonly #onAlarm: (alarm: AdmissionAlarm) => void;
  readonly #lastSeen = new Map<string, number>();
  /** New-keyid counts of closed windows, oldest first, at most 90 days. */
  readonly #history: number[] = [];
  #window = -1;
  #count = 0;
  #alarmed = new Set<string>();
  #firstAdmission: number | undefined;
  #overdueRaised = false;
  /** Baselines from closed windows, recomputed once per window (not per admission). */
  #baseline = { mean: 0, p95: 0, p99: 0 };

  constructor(
    options: Partial<AdmissionThresholds> & { onAlarm: (alarm: AdmissionAlarm) => void; random?: () => number },
  ) {
    const random = options.random ?? Math.random;
    this.#defaults = (Object.keys(STARTING) as Array<keyof AdmissionThresholds>).filter(
      (k) => options[k] === undefined,
    );
    const jitter = (value: number) => value * 2 ** (random() * 2 - 1);
    this.#thresholds = { ...STARTING };
    for (const key of Object.keys(STARTING) as Array<keyof AdmissionThresholds>) {
      this.#thresholds[key] = options[key] ?? jitter(STARTING[key]);
    }
    this.#onAlarm = options.onAlarm;
  }

  /** The thresholds in force (defaults already jittered). */
  get thresholds(): Readonly<AdmissionThresholds> {
    return this.#thresholds;
  }

  /** Records that `keyid` was admitted to the replay cache at `nowSeconds`. */
  observe(keyid: string, nowSeconds: number): void {
    this.#roll(Math.floor(nowSeconds / WINDOW));
    this.#firstAdmission ??= nowSeconds;
    const last = this.#lastSeen.get(keyid);
    this.#lastSeen.set(keyid, nowSeconds);
    if (this.#defaults.length > 0 && !this.#overdueRaised && nowSeconds - this.#firstAdmission > 30 * 86_400) {
      this.#overdueRaised = true;
      this.#onAlarm({ kind: 'threshold_tuning_overdue', defaults: [...this.#defaults] });
    }
    if (last !== undefined && nowSeconds - last <= 30 * 86_400) return;
    this.#count += 1;
    this.#check();
  }

  #roll(window: number): void {
    if (window === this.#window) return;
    if (this.#window >= 0) {
      const gap = Math.min(window - this.#window - 1, 90 * DAY_WINDOWS);
      this.#history.push(this.#count, ...new Array<number>(Math.max(0, gap)).fill(0));
      if (this.#history.length > 90 * DAY_WINDOWS) this.#history.splice(0, this.#history.length - 90 * DAY_WINDOWS);
    }
    this.#window = window;
    this.#count = 0;
    this.#alarmed = new Set();
    const day = this.#history.slice(-DAY_WINDOWS);
    this.#baseline = {
      mean: day.length === 0 ? 0 : day.reduce((a, b) => a + b, 0) / day.length,
      p95: quantile(this.#history.slice(-30 * DAY_WINDOWS), 0.95),
      p99: quantile(this.#history, 0.99),
    };
  }

  #check(): void {
    const t = this.#thresholds;
    const { mean, p95, p99 } = this.#baseline;
    const seen30 = [...this.#lastSeen.values()].filter((at) => at >= this.#window * WINDOW - 30 * 86_400).length;
    const limits: Array<['a' | 'b' | 'c' | 'd', number]> = [
      ['a', t.shortRatio * mean],
      ['b', t.mediumRatio * p95],
      ['c', t.longRatio * p99],
      ['d', Math.max(t.floor, t.proportion * seen30)],
    ];
    for (const [clause, limit] of limits) {
      // The ratio clauses need a baseline: with a day of history at least, and above zero (the
      // tuning guide: near-zero baselines make them fire on every onboarding; clause d covers that).
      if (clause !== 'd' && (this.#history.length < DAY_WINDOWS || limit <= 0)) continue;
      if (this.#count > limit && !this.#alarmed.has(clause)) {
        this.#alarmed.add(clause);
        this.#onAlarm({
          kind: 'admission_pressure',
          clause,
          newKeyids: this.#count,
          threshold: limit,
          windowStart: this.#window * WINDOW,
        });
      }
    }
  }
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}
