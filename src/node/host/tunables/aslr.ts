// ASLR for mysqld only: `off` starts it under `setarch $(uname -m) -R`, leaving the host's own
// kernel.randomize_va_space alone. Verified from the personality of the live process.
import { check, type Tunable } from './tunable.js';

/** ADDR_NO_RANDOMIZE in <linux/personality.h>. */
export const ADDR_NO_RANDOMIZE = 0x0040000;

export const aslr: Tunable = {
  id: 'aslr',
  plan(level, r) {
    r.noRandomize = level === 'off';
  },
  async verify(level, live) {
    const raw = (await live.proc('personality')).trim();
    const flags = Number.parseInt(raw, 16);
    if (!Number.isFinite(flags)) return check('aslr', level, false, `cannot read /proc/${live.pid}/personality: ${JSON.stringify(raw)}`);
    const off = (flags & ADDR_NO_RANDOMIZE) !== 0;
    const observed = `personality 0x${raw}: ADDR_NO_RANDOMIZE ${off ? 'set (ASLR off)' : 'clear (ASLR on)'}`;
    return check('aslr', level, off === (level === 'off'), observed);
  },
};
