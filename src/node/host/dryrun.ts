// The dry run: for each cell, the very script its restart sends to the target (computed by the same
// procedure and compiler as the run, for the same probed host), then what happens over the server
// connection. `varlab run --dry-run`, `sandbox start --dry-run` and the Hosts view all show this.
import type { Design } from '../../common/experiment/types.js';
import { expandCells } from '../../common/plan.js';
import { describeStep, onTarget, type RestartProcedure } from '../../common/restart.js';
import { formatScript, type Script } from './script.js';
import type { ServerControl } from './types.js';

/**
 * The procedure as text: the one remote call (its script, exactly as run), then the server-side steps.
 * With idle time, a run makes two calls around it: `parts` gives them (down, then up).
 */
export function procedureText(proc: RestartProcedure, script: Script, parts?: { down: Script; up: Script }): string[] {
  const idle = proc.steps.find((s) => s.kind === 'idle');
  const out =
    idle && parts
      ? [`# one remote call on the target:\n${formatScript(parts.down)}`, `# then, from varlab (a cancel ends it at once): ${describeStep(idle)}`, `# one remote call on the target:\n${formatScript(parts.up)}`]
      : [`# one remote call on the target:\n${formatScript(script)}`];
  for (const s of proc.steps) {
    if (s.kind === 'verify' && (s.facts.some((f) => !onTarget(f)) || s.options.length)) out.push(`# then over the server connection: ${describeStep(s).replace(/^read back .*?(SHOW GLOBAL VARIABLES)/, '$1')}`);
    if (s.kind === 'preload') out.push(`# then: ${describeStep(s)}`);
  }
  return out;
}

/** Every included cell of a design: its levels and the commands its restart would run. */
export async function dryRunCells(control: ServerControl, design: Design): Promise<{ cell: string; levels: Record<string, string>; commands: string[] }[]> {
  const out = [];
  for (const cell of expandCells(design).filter((c) => !c.excluded)) {
    const proc = await control.procedure(design.factors, cell.levels, { schemas: [design.workload.database], workload: true, idleSeconds: design.idleSeconds });
    const parts = proc.steps.some((s) => s.kind === 'idle') ? { down: await control.script(proc, 'down'), up: await control.script(proc, 'up') } : undefined;
    out.push({ cell: cell.id, levels: cell.levels, commands: procedureText(proc, await control.script(proc), parts) });
  }
  return out;
}
