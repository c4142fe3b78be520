// Server variables set at start-up and verified with SELECT @@name: the adaptive hash index,
// innodb_old_blocks_time, innodb_buffer_pool_load_at_startup, and any variable a factor names.
import { ApiError } from '../../../common/api.js';
import { VARIABLE_NAME } from '../../../common/catalog.js';
import { check, type Tunable } from './tunable.js';

const SIZE = /^(\d+)([KMGT])$/i;

/** Compare as the server reports it: ON/OFF as 1/0, sizes as bytes, words case-insensitively. */
export function sameValue(wanted: string, observed: string | null): boolean {
  if (observed === null) return false;
  const norm = (v: string) => {
    const s = v.trim().toUpperCase();
    if (s === 'ON' || s === 'TRUE') return '1';
    if (s === 'OFF' || s === 'FALSE') return '0';
    const m = SIZE.exec(s);
    if (m) return String(BigInt(m[1]) * 1024n ** BigInt('KMGT'.indexOf(m[2].toUpperCase()) + 1));
    return s;
  };
  return norm(wanted) === norm(observed);
}

function startupVariable(id: string, variable: (name?: string) => string, value: (level: string) => string): Tunable {
  return {
    id,
    plan(level, r, name) {
      r.args.push(`--${variable(name).replace(/_/g, '-')}=${value(level)}`);
    },
    async verify(level, live, name) {
      const v = variable(name);
      const observed = await live.variable(v);
      return check(id, level, sameValue(value(level), observed), `@@${v} = ${observed ?? 'unknown variable'}`);
    },
  };
}

const onOff = (level: string) => (level === 'on' ? 'ON' : 'OFF');

export const ahi = startupVariable('ahi', () => 'innodb_adaptive_hash_index', onOff);
export const oldBlocksTime = startupVariable('old_blocks_time', () => 'innodb_old_blocks_time', (l) => l);
export const bpLoad = startupVariable('bp_load', () => 'innodb_buffer_pool_load_at_startup', onOff);
export const variable = startupVariable(
  'variable',
  (name) => {
    if (!name || !VARIABLE_NAME.test(name)) throw new ApiError('invalid-argument', `server variable name ${JSON.stringify(name ?? '')} is not valid: expected lower-case letters, digits and _`);
    return name;
  },
  (l) => l,
);
