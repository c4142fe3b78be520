// Questions from the host layer, asked on the terminal. Without a terminal nobody can answer:
// fail with a message that names the option that avoids the question.
import { createInterface } from 'node:readline';
import { ApiError } from '../common/api.js';
import { oneAtATime } from '../common/turns.js';
import type { Prompter } from '../node/host/types.js';

const HOW_TO_AVOID: Record<string, string> = {
  'host-key': 'pass --accept-new to trust a new host key, or --known-hosts FILE holding it',
  password: 'use ssh-agent (SSH_AUTH_SOCK) or --identity KEY instead of a password',
  passphrase: 'load the key into ssh-agent (ssh-add KEY) so no passphrase is needed',
  confirm: 'run it on a terminal to answer',
};

/** Read one line; when `hidden`, nothing typed is echoed (passwords, passphrases). */
function ask(question: string, hidden: boolean): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    if (hidden) {
      // readline echoes through _writeToOutput; write only the question itself.
      const r = rl as unknown as { _writeToOutput: (s: string) => void; output: NodeJS.WritableStream };
      let shown = false;
      r._writeToOutput = (s: string) => {
        if (!shown) {
          shown = true;
          r.output.write(s);
        }
      };
    }
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolve(answer);
    });
  });
}

/**
 * There is one terminal: every prompter asks through the same queue. The hosts of a run on several
 * hosts connect at once: two questions open on one terminal at once were printed into each other, and
 * the line typed went to both.
 */
const queued: Prompter = oneAtATime(answer);

export function terminalPrompter(): Prompter {
  return queued;
}

async function answer(p: Parameters<Prompter>[0]): ReturnType<Prompter> {
  if (!process.stdin.isTTY) {
    throw new ApiError(p.kind === 'host-key' ? 'host-key-rejected' : 'auth', `${p.message} — no terminal to answer on: ${HOW_TO_AVOID[p.kind]}`);
  }
  if (p.kind === 'password' || p.kind === 'passphrase') {
    const secret = await ask(`${p.message} `, true);
    return { accept: secret !== '', secret };
  }
  const a = (await ask(`${p.message} [yes/no] `, false)).trim().toLowerCase();
  return { accept: a === 'yes' || a === 'y', remember: true };
}
