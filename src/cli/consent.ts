// Teammates' files on the command line (issue 6, point 4; issue 13): before the first run of a file
// whose commands go beyond the built-in tunables on a target, list them in full and ask on the
// terminal; without a terminal, refuse and name --trust. The answer is kept in the same consent store
// the app uses, so agreeing once (here or in the UI) covers both for this list on this target.
import { visible } from '../common/printable.js';
import type { ExperimentDoc } from '../common/experiment/types.js';
import { consentList } from '../common/trust.js';
import { checkTrust, grantTrust } from '../node/trust.js';
import type { Prompter } from '../node/host/types.js';
import type { CliIO } from './io.js';

/**
 * null: go on (nothing to agree to, already agreed, agreed now, or --trust). A number: the exit
 * status to leave with, after a message saying why. trust: true for --trust, or the words saying
 * why else the commands need no question (a one-liner's queries were typed on its command line).
 */
export async function confirmConsent(opts: { file: string; doc: ExperimentDoc; target?: string; trust: boolean | string; io: CliIO; prompt: Prompter; interactive: boolean; note?: string }): Promise<number | null> {
  const { file, doc, target, trust, io } = opts;
  const check = await checkTrust(doc, target);
  if (!check.needsConsent) return null;
  const head = `${visible(file)} would run these on ${check.target}, beyond varlab's built-in tunables${opts.note ? ` (${opts.note})` : ''}:\n${consentList(check.commands)}`;
  if (trust) {
    await grantTrust(doc, target);
    io.err(`${head}\n${trust === true ? '--trust' : trust}: agreed to them for ${check.target}; varlab will not ask again for these commands there`);
    return null;
  }
  if (!opts.interactive) {
    io.err(`varlab run: ${head}\nno terminal to ask on: read them, then run again with --trust to agree to these commands for this file on ${check.target}`);
    return 2;
  }
  const answer = await opts.prompt({ kind: 'confirm', title: 'Run commands from this file?', message: `${head}\nRun them on ${check.target}?` });
  if (!answer.accept) {
    io.err(`varlab run: not agreed; nothing was run on ${check.target}`);
    return 2;
  }
  await grantTrust(doc, target);
  return null;
}
