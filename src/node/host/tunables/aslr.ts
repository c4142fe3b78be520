// ASLR. Per mysqld (the default): `off` starts it under `setarch $(uname -m) -R`, leaving the host's
// own kernel.randomize_va_space alone; verified from the personality of the live process.
// Host-wide (`off-host`, when the catalog offers it): kernel.randomize_va_space = 0, saved in the
// restore record first and put back by every other level, so ASLR is never left off host-wide.
import { ASLR_FILE } from './hostwide.js';
import { check, type Tunable } from './tunable.js';

/** ADDR_NO_RANDOMIZE in <linux/personality.h>. */
export const ADDR_NO_RANDOMIZE = 0x0040000;
export const HOST_WIDE_OFF = 'off-host';

export const aslr: Tunable = {
  id: 'aslr',
  hostFiles: ASLR_FILE,
  plan(level, r) {
    r.noRandomize = level === 'off';
    if (level === HOST_WIDE_OFF) r.host.push({ tunable: 'aslr', files: ASLR_FILE, value: '0', read: 'cat' });
  },
  async verify(level, live) {
    if (level === HOST_WIDE_OFF) {
      const v = (await live.hostFile(ASLR_FILE)).trim();
      return check('aslr', level, v === '0', `kernel.randomize_va_space = ${v || 'unreadable'}`);
    }
    const raw = (await live.proc('personality')).trim();
    const flags = Number.parseInt(raw, 16);
    if (!Number.isFinite(flags)) return check('aslr', level, false, `cannot read /proc/${live.pid}/personality: ${JSON.stringify(raw)}`);
    const off = (flags & ADDR_NO_RANDOMIZE) !== 0;
    const observed = `personality 0x${raw}: ADDR_NO_RANDOMIZE ${off ? 'set (ASLR off)' : 'clear (ASLR on)'}`;
    return check('aslr', level, off === (level === 'off'), observed);
  },
};
