// The Hosts panel: probe a target (local, ssh://user@host:port, or an ~/.ssh/config alias) and show
// its fingerprint. Host-key and password questions arrive as `prompt` events and are answered in
// the app's PromptDialog; nothing secret passes through this view.
import { useState } from 'react';
import type { DryRun, TargetAuth } from '../../../common/api.js';
import type { HostFingerprint } from '../../../common/host.js';
import { getClient } from '../../client.js';
import { useApp } from '../../store/index.js';

const ASLR = { '0': 'off', '1': 'partial', '2': 'full' } as Record<string, string>;

function Fingerprint({ f }: { f: HostFingerprint }) {
  const rows: [string, string][] = [
    ['Hostname', f.hostname],
    ['Kernel', f.kernel],
    ['CPU', f.cpuModel],
    ['Topology', `${f.sockets} socket(s), ${f.cores} core(s), ${f.threads} thread(s)`],
    ['NUMA', f.numaNodes.map((n) => `node ${n.node}: CPUs ${n.cpus}, ${n.memoryMb.toLocaleString('en')} MB`).join('\n') || 'no NUMA information'],
    ['ASLR', `kernel.randomize_va_space = ${f.aslr} (${ASLR[f.aslr] ?? 'unknown'})`],
    ['CPU governor', f.governor ?? 'no cpufreq'],
    ['Turbo', f.turbo ?? 'not controllable'],
    ['Transparent huge pages', f.thp ?? 'not available'],
    ['sudo -n', f.sudoWithoutPassword ? 'works (or root)' : 'needs a password: host-wide tunables are not possible'],
    ['Tools', Object.entries(f.tools).map(([k, v]) => `${k} ${v ? '✓' : '✗'}`).join('  ')],
    ['mysqld', f.mysqld ? `${f.mysqld.flavor} ${f.mysqld.version} at ${f.mysqld.binary}` : 'not found'],
  ];
  if (f.mysqld) rows.push(['Data directory', f.mysqld.datadir ?? '?'], ['Socket', f.mysqld.socket ?? '?'], ['Config file', f.mysqld.configFile ?? 'none found']);
  return (
    <table className="data" data-testid="host-fingerprint">
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th style={{ textAlign: 'left', verticalAlign: 'top' }}>{k}</th>
            <td className="prewrap" data-testid={`host-${k.toLowerCase().replace(/[^a-z]+/g, '-')}`}>
              {v}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** --dry-run in the app: every command each cell's restart would run on the target; nothing runs. */
function DryRunPanel() {
  const design = useApp((s) => s.doc?.design);
  const [dry, setDry] = useState<DryRun | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!design) return null;
  const show = async () => {
    const r = await getClient().call('host.dryRun', { design });
    if (r.ok) {
      setDry(r.value);
      setError(null);
    } else setError(r.message);
  };
  return (
    <div className="panel" data-testid="host-dry-run">
      <div className="row">
        <strong>Commands on {design.target}</strong>
        <button onClick={() => void show()} data-testid="host-dry-run-show">
          {dry ? 'Refresh' : 'Show what a run would execute'}
        </button>
      </div>
      {error && <p className="problem">{error}</p>}
      {dry?.problem && <p className="warning">{dry.problem}</p>}
      {dry?.cells.map((c) => (
        <details key={c.cell}>
          <summary>
            <code>{c.cell}</code>
          </summary>
          <pre className="prewrap small" data-testid="host-dry-run-commands">
            {c.commands.join('\n\n')}
          </pre>
        </details>
      ))}
    </div>
  );
}

export function HostsView() {
  const designTarget = useApp((s) => s.doc?.design.target);
  const [target, setTarget] = useState(designTarget ?? 'local');
  const [identity, setIdentity] = useState('');
  const [knownHosts, setKnownHosts] = useState('');
  const [acceptNew, setAcceptNew] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<HostFingerprint | null>(null);

  const probe = async () => {
    setBusy(true);
    setError(null);
    const auth: TargetAuth = { identity: identity.trim() || undefined, knownHosts: knownHosts.trim() || undefined, acceptNewHostKey: acceptNew || undefined };
    const r = await getClient().call('host.probe', { target: target.trim(), auth });
    setBusy(false);
    if (r.ok) setResult(r.value);
    else {
      setResult(null);
      setError(r.message);
    }
  };

  return (
    <div className="hosts" data-testid="hosts">
      <form
        className="panel"
        onSubmit={(e) => {
          e.preventDefault();
          void probe();
        }}
      >
        <div className="row">
          <label className="field">
            <span>Target</span>
            <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="local, ssh://user@host:port or an ~/.ssh/config alias" size={40} data-testid="host-target" />
          </label>
          <label className="field">
            <span>Identity file (optional)</span>
            <input value={identity} onChange={(e) => setIdentity(e.target.value)} placeholder="~/.ssh/id_ed25519" size={30} data-testid="host-identity" />
          </label>
          <label className="field">
            <span>Extra known_hosts (optional)</span>
            <input value={knownHosts} onChange={(e) => setKnownHosts(e.target.value)} size={30} data-testid="host-known-hosts" />
          </label>
          <button type="submit" disabled={busy || !target.trim()} data-testid="host-probe">
            {busy ? 'Probing…' : 'Probe'}
          </button>
        </div>
        <label className="check">
          <input type="checkbox" checked={acceptNew} onChange={(e) => setAcceptNew(e.target.checked)} />
          Trust a host key never seen before without asking (a changed key is always refused)
        </label>
        <p className="muted small">Keys come from ssh-agent, the identity file, or ~/.ssh/config. Unknown host keys and passwords are asked for in a dialog; nothing secret is saved.</p>
      </form>
      {error && (
        <p className="problem prewrap" role="alert" data-testid="host-error">
          {error}
        </p>
      )}
      {result && (
        <div className="panel">
          <h3>
            {result.target} <small className="muted">probed {new Date(result.probedAt).toLocaleString()}</small>
          </h3>
          <Fingerprint f={result} />
        </div>
      )}
      <DryRunPanel />
    </div>
  );
}
