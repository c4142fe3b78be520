// Questions on the terminal come one at a time: the hosts of a run on several hosts connect at once,
// and two questions open on one terminal were printed into each other and both read the line typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oneAtATime } from '../../src/common/turns.js';

test('a second question waits until the first is answered, and one that fails does not hold up the next', async () => {
  const said: string[] = [];
  let answerFirst: (v: string) => void = () => {};
  const ask = oneAtATime(async (q: string) => {
    said.push(`asked ${q}`);
    if (q === 'host B') throw new Error('no terminal');
    const a = q === 'host A' ? await new Promise<string>((r) => (answerFirst = r)) : `yes to ${q}`;
    said.push(`answered ${q}`);
    return a;
  });
  const a = ask('host A');
  const b = ask('host B');
  const c = ask('host C');
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(said, ['asked host A'], 'B and C wait while A is open');
  answerFirst('yes to host A');
  assert.equal(await a, 'yes to host A');
  await assert.rejects(b, /no terminal/);
  assert.equal(await c, 'yes to host C');
  assert.deepEqual(said, ['asked host A', 'answered host A', 'asked host B', 'asked host C', 'answered host C']);
});
