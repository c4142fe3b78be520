// The host as a block factor: spread between hosts beside spread between restarts, and the host ×
// factor interaction test. The figures were computed independently with numpy/scipy (a saturated
// effect-coded least-squares model against one without the host:A terms, scipy.stats.f.sf; the
// one-way variance components by hand), on data with one group short by a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostInteraction, hostInteractions, hostSpread, type HostGroup } from '../../src/common/stats/hosts.js';

const ROWS: [string, string, string, number][] = [["h1", "off", "x", 10.000123], ["h1", "off", "x", 10.029919], ["h1", "off", "x", 9.972624], ["h1", "off", "y", 10.208676], ["h1", "off", "y", 10.253275], ["h1", "off", "y", 10.198365], ["h1", "on", "x", 10.006016], ["h1", "on", "x", 10.134924], ["h1", "on", "x", 9.9509], ["h1", "on", "y", 10.236289], ["h1", "on", "y", 10.350578], ["h1", "on", "y", 10.336825], ["h2", "off", "x", 10.110652], ["h2", "off", "x", 10.006459], ["h2", "off", "x", 10.097046], ["h2", "off", "y", 10.475584], ["h2", "off", "y", 10.264097], ["h2", "off", "y", 10.355503], ["h2", "on", "x", 10.109981], ["h2", "on", "x", 10.172012], ["h2", "on", "x", 10.115997], ["h2", "on", "y", 10.588233], ["h2", "on", "y", 10.479487], ["h3", "off", "x", 10.227707], ["h3", "off", "x", 10.216001], ["h3", "off", "x", 10.180951], ["h3", "off", "y", 10.244889], ["h3", "off", "y", 10.449557], ["h3", "off", "y", 10.500906], ["h3", "on", "x", 10.735122], ["h3", "on", "x", 10.560138], ["h3", "on", "x", 10.671858], ["h3", "on", "y", 10.937107], ["h3", "on", "y", 10.955681], ["h3", "on", "y", 11.16245]];

function groups(): HostGroup[] {
  const out = new Map<string, HostGroup & { means: number[] }>();
  for (const [host, a, b, v] of ROWS) {
    const key = [host, a, b].join('|');
    if (!out.has(key)) out.set(key, { host, levels: { a, b }, means: [] });
    out.get(key)!.means.push(v);
  }
  return [...out.values()];
}

const close = (x: number | null, y: number, rel = 1e-9) => assert.ok(x !== null && Math.abs(x - y) <= rel * Math.abs(y), `${x} != ${y}`);

test("host × factor: the F test of the level's effect being the same on every host matches the two-way ANOVA's interaction test", () => {
  const r = hostInteraction(groups(), 'a', 'off', 'on', 'q');
  // numpy/scipy: F 29.368349329756878, df 2 and 23, p 4.64593949171856e-07
  close(r.f, 29.368349329756878);
  assert.equal(r.df1, 2);
  assert.equal(r.df2, 23);
  close(r.p_value, 4.64593949171856e-7, 1e-6);
  // The effect per host, in %: about 0, 2 and 5 % as the data were made.
  assert.ok(Math.abs(r.effects_pct.h1!) < 1 && Math.abs(r.effects_pct.h2! - 2) < 1 && Math.abs(r.effects_pct.h3! - 5) < 1, JSON.stringify(r.effects_pct));
});

test('a factor that acts alike on every host is not flagged; one that does not is, after adjustment', () => {
  const list = hostInteractions(new Map([['q', groups()]]), [{ key: 'a', levels: ['off', 'on'] }, { key: 'b', levels: ['x', 'y'] }], { alpha: 0.05, adjustment: 'holm' });
  const a = list.find((i) => i.factor === 'a')!;
  const b = list.find((i) => i.factor === 'b')!;
  assert.equal(a.flagged, true);
  assert.equal(b.flagged, false, `b: p ${b.p_value}`);
  assert.ok(a.p_adjusted! >= a.p_value!);
});

test('spread between hosts beside spread between restarts (one cell, one query)', () => {
  const byHost = ['h1', 'h2', 'h3'].map((host) => ({ host, means: ROWS.filter((r) => r[0] === host && r[1] === 'off' && r[2] === 'x').map((r) => r[3]) }));
  const s = hostSpread('a=off,b=x', 'q', byHost);
  // numpy: restart cov 0.3888330239522514, host cov 1.0200170187532638
  close(s.between_restart_cov_pct, 0.3888330239522514);
  close(s.between_host_cov_pct, 1.0200170187532638);
  assert.equal(s.n_hosts, 3);
});

test('too little data says why instead of a number', () => {
  const one = hostSpread('c', 'q', [{ host: 'h1', means: [1, 2] }]);
  assert.equal(one.between_host_cov_pct, null);
  assert.match(one.null_reasons!.between_host_cov_pct!, /two hosts/);
  const single = hostInteraction([{ host: 'h1', levels: { a: 'off' }, means: [1] }, { host: 'h1', levels: { a: 'on' }, means: [2] }, { host: 'h2', levels: { a: 'off' }, means: [1] }, { host: 'h2', levels: { a: 'on' }, means: [2] }], 'a', 'off', 'on', 'q');
  assert.equal(single.f, null);
  assert.match(single.null_reasons!.f!, /second restart/);
  const oneHost = hostInteraction(groups().filter((g) => g.host === 'h1'), 'a', 'off', 'on', 'q');
  assert.match(oneHost.null_reasons!.f!, /two hosts/);
});
