import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionMonitor, type AdmissionAlarm } from '../../src/signing/admission-monitor.js';

const T0 = 1_800_000_000 - (1_800_000_000 % 300);

describe('AdmissionMonitor', () => {
  it('jitters unset starting thresholds log-uniformly within [0.5x, 2x]', () => {
    const low = new AdmissionMonitor({ onAlarm: () => undefined, random: () => 0 });
    const high = new AdmissionMonitor({ onAlarm: () => undefined, random: () => 1 });
    assert.equal(low.thresholds.floor, 10);
    assert.equal(high.thresholds.floor, 40);
    assert.equal(new AdmissionMonitor({ onAlarm: () => undefined, floor: 7 }).thresholds.floor, 7);
  });

  it('raises clause d once when new keyids in one window pass the floor', () => {
    const alarms: AdmissionAlarm[] = [];
    const monitor = new AdmissionMonitor({
      onAlarm: (a) => alarms.push(a),
      floor: 3,
      proportion: 0.1,
      random: () => 0.5,
    });
    for (let i = 0; i < 6; i += 1) monitor.observe(`kid-${i}`, T0 + i);
    assert.deepEqual(alarms, [
      { kind: 'admission_pressure', clause: 'd', newKeyids: 4, threshold: 3, windowStart: T0 },
    ]);
  });

  it('does not count a keyid seen within 30 days as new', () => {
    const alarms: AdmissionAlarm[] = [];
    const monitor = new AdmissionMonitor({ onAlarm: (a) => alarms.push(a), floor: 1, proportion: 0 });
    monitor.observe('same', T0);
    for (let i = 1; i < 50; i += 1) monitor.observe('same', T0 + i * 600);
    assert.deepEqual(alarms, []);
  });

  it('raises clause a against a stable day of baseline traffic', () => {
    const alarms: AdmissionAlarm[] = [];
    const monitor = new AdmissionMonitor({
      onAlarm: (a) => alarms.push(a),
      shortRatio: 3,
      mediumRatio: 100,
      longRatio: 100,
      floor: 1000,
      proportion: 0,
    });
    let n = 0;
    for (let w = 0; w < 300; w += 1) monitor.observe(`base-${n++}`, T0 + w * 300); // one new keyid per window for a day
    for (let i = 0; i < 5; i += 1) monitor.observe(`burst-${i}`, T0 + 300 * 300 + i);
    assert.deepEqual(
      alarms.map((a) => a.kind === 'admission_pressure' && a.clause),
      ['a'],
    );
  });

  it('raises threshold_tuning_overdue once when defaults are still in use after 30 days', () => {
    const alarms: AdmissionAlarm[] = [];
    const monitor = new AdmissionMonitor({
      onAlarm: (a) => alarms.push(a),
      shortRatio: 3,
      mediumRatio: 2,
      longRatio: 1.5,
      floor: 20,
    });
    monitor.observe('k', T0);
    monitor.observe('k', T0 + 31 * 86_400);
    monitor.observe('k', T0 + 32 * 86_400);
    assert.deepEqual(alarms, [{ kind: 'threshold_tuning_overdue', defaults: ['proportion'] }]);
  });
});
