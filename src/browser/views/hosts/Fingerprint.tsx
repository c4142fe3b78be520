// A probed host as a table: what the probe read on the target, stored with every result.
import type { HostFingerprint } from '../../../common/host.js';

const ASLR = { '0': 'off', '1': 'partial', '2': 'full' } as Record<string, string>;

export function Fingerprint({ f }: { f: HostFingerprint }) {
  const rows: [string, string][] = [
    ['Hostname', f.hostname],
    ['Kernel', `${f.kernel}${f.arch ? ` (${f.arch})` : ''}`],
    ['CPU', f.cpuModel],
    ['Topology', `${f.sockets} socket(s), ${f.cores} core(s), ${f.threads} thread(s)`],
    ['NUMA', f.numaNodes.map((n) => `node ${n.node}: CPUs ${n.cpus}, ${n.memoryMb.toLocaleString('en')} MB`).join('\n') || 'no NUMA information'],
    ['ASLR', `kernel.randomize_va_space = ${f.aslr} (${ASLR[f.aslr] ?? 'unknown'})`],
    ['CPU governor', f.governor ?? 'no cpufreq: the governor factor is not available here'],
    ['Turbo', f.turbo ?? 'not controllable: the turbo factor is not available here'],
    ['Transparent huge pages', f.thp ?? 'not available'],
    ['sudo -n', f.sudoWithoutPassword ? 'works (or root)' : 'needs a password: host-wide tunables are not possible'],
    ['Tools', Object.entries(f.tools).map(([k, v]) => `${k} ${v ? '✓' : '✗'}`).join('  ')],
    ['Allocators', f.allocators ? `jemalloc ${f.allocators.jemalloc ?? '✗'}  tcmalloc ${f.allocators.tcmalloc ?? '✗'}` : 'not probed'],
    ['mysqld', f.mysqld ? `${f.mysqld.flavor} ${f.mysqld.version} at ${f.mysqld.binary}` : 'not found'],
  ];
  if (f.mysqld) rows.push(['Data directory', f.mysqld.datadir ?? '?'], ['Socket', f.mysqld.socket ?? '?'], ['Config file', f.mysqld.configFile ?? 'none found']);
  return <KeyValues rows={rows} testid="host-fingerprint" cellIds />;
}

/** Rows of `name: value` (values may hold several lines). */
export function KeyValues({ rows, testid, cellIds = false }: { rows: [string, string][]; testid: string; cellIds?: boolean }) {
  return (
    <table className="data" data-testid={testid}>
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th style={{ textAlign: 'left', verticalAlign: 'top' }}>{k}</th>
            <td className="prewrap" data-testid={cellIds ? `host-${k.toLowerCase().replace(/[^a-z]+/g, '-')}` : undefined}>
              {v}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
