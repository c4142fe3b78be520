// R2 (issue 26): the state of a run on several hosts knows "paused" and does not depend on the hosts' order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunStatus } from '../../src/common/api.js';
import { groupState } from '../../src/common/events.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import type { RunEngine } from '../../src/node/engine/run.js';
import { HostGroup } from '../../src/node/runs/group.js';

/** A group of hosts whose engines report the given states (nothing runs). */
function groupOf(states: RunStatus['state'][]): HostGroup {
  return new HostGroup({
    runId: 'r',
    path: '/nowhere/x.varlab.json',
    hosts: states.map((_, i) => ({ target: `h${i}`, doc: {} as ExperimentDoc, journal: `/nowhere/h${i}.jsonl`, done: false })),
    engine: (h) => ({ status: () => ({ state: states[Number(h.target.slice(1))] }) }) as unknown as RunEngine,
    save: async () => {},
  });
}

test('a paused host is not hidden by a finished one, in either order', () => {
  assert.equal(groupOf(['finished', 'paused']).status().state, 'paused');
  assert.equal(groupOf(['paused', 'finished']).status().state, 'paused');
});

test('running wins over everything; failed over cancelled over finished; order never matters', () => {
  const cases: [RunStatus['state'][], RunStatus['state']][] = [
    [['finished', 'running', 'paused'], 'running'],
    [['finished', 'failed', 'cancelled'], 'failed'],
    [['cancelled', 'finished'], 'cancelled'],
    [['finished', 'finished'], 'finished'],
  ];
  for (const [states, want] of cases) {
    for (const order of [states, [...states].reverse()]) assert.equal(groupOf(order).status().state, want, order.join(','));
  }
});

test('a detached run on several hosts stays detached while any host goes on unfollowed', () => {
  assert.equal(groupState(['finished', 'detached', 'failed']), 'detached');
  assert.equal(groupState([]), 'finished');
});

test('R1: cancel names the host it could not reach, not the host before it that had already ended', async () => {
  const { askEachToStop } = await import('../../src/node/detach/attach.js');
  const run = (target: string, ended: boolean) => ({ target, ended }) as unknown as import('../../src/node/detach/runs.js').DetachedRun;
  const out = await askEachToStop([run('alpha', true), run('beta', false), run('gamma', false)], async (d) => {
    if (d.target === 'gamma') throw new Error('connection refused');
    return true;
  });
  assert.deepEqual(out.notReached, ['gamma: connection refused']);
  assert.equal(out.signalled, true);
});
