import { ApiError, type TargetAuth } from '../../common/api.js';
import { formatFingerprint, openTarget, probeHost } from '../../node/host/index.js';
import { readNoiseFacts } from '../../node/host/check.js';
import { formatHostCheck, hostCheck } from '../../common/host-check.js';
import { parse, UsageError, type Command } from '../io.js';
import { terminalPrompter } from '../prompter.js';

/** The connection options shared by commands that reach a target. */
export const TARGET_OPTIONS = {
  identity: { type: 'string' },
  'known-hosts': { type: 'string' },
  'accept-new': { type: 'boolean' },
} as const;

export function targetAuth(values: { identity?: string; 'known-hosts'?: string; 'accept-new'?: boolean }): TargetAuth {
  return { identity: values.identity, knownHosts: values['known-hosts'], acceptNewHostKey: values['accept-new'] };
}

/** An ApiError from the host layer is the user's message: print it, exit 1. */
export function hostFailure(e: unknown): never {
  // Bad input (a target, level or path refused by its check) is exit 2, as for every command; the message names the field.
  if (e instanceof ApiError && e.code === 'invalid-argument') throw new UsageError(e.message);
  if (e instanceof ApiError) throw new Error(e.message);
  throw e;
}

export const probe: Command = {
  name: 'probe',
  usage:
    'varlab probe TARGET [--identity KEY] [--known-hosts FILE] [--accept-new] [--json] [--check]\n\n' +
    'TARGET is `local`, ssh://[user@]host[:port], or an alias from ~/.ssh/config.\n' +
    '--identity KEY       private key file to log in with (besides ssh-agent)\n' +
    '--known-hosts FILE   an extra known_hosts file to check the host key against\n' +
    '--accept-new         trust a host key never seen before (a changed key is always refused)\n' +
    '--json               print the fingerprint as JSON (what is stored with every result)\n' +
    '--check              what makes this host noisy for benchmarks, with advice (as pyperf system check):\n' +
    '                     governor, turbo, THP, ASLR, isolated CPUs, irqbalance, swap, load, other busy\n' +
    '                     processes (a one-second sample). Read-only. Exit 0 either way.',
  async run(argv, io) {
    const { values, positionals } = parse(argv, { ...TARGET_OPTIONS, json: { type: 'boolean' }, check: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError('expected exactly one TARGET');
    try {
      const session = await openTarget(positionals[0], { auth: targetAuth(values), prompt: terminalPrompter() });
      try {
        const f = await probeHost(session);
        if (values.check) {
          const items = hostCheck(f, await readNoiseFacts(session));
          if (values.json) io.out(JSON.stringify({ host: f, check: items }, null, 2));
          else for (const l of [...formatFingerprint(f), '', ...formatHostCheck(items)]) io.out(l);
        } else if (values.json) io.out(JSON.stringify(f, null, 2));
        else for (const l of formatFingerprint(f)) io.out(l);
      } finally {
        await session.close();
      }
    } catch (e) {
      hostFailure(e);
    }
    return 0;
  },
};
