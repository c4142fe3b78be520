// The Hosts view: the list of hosts varlab knows (target, last probe, sandbox or server profile),
// and for the one selected: probe it again, see its fingerprint, make or remove a sandbox, register
// an existing server, check its options on the live server; then the commands a run of the open
// experiment would execute there. Host-key and password questions arrive as `prompt` events and are
// answered in the app's PromptDialog; nothing secret passes through this view or is saved.
import { useEffect, useState } from 'react';
import type { HostEntry, TargetAuth } from '../../../common/api.js';
import { getClient } from '../../client.js';
import { NoiseCheckPanel } from './NoiseCheckPanel.js';
import { designHosts } from '../../../common/plan.js';
import { useApp } from '../../store/index.js';
import { DryRunPanel } from './DryRunPanel.js';
import { Fingerprint } from './Fingerprint.js';
import { ServerPanel } from './ServerPanel.js';

function serverSummary(h: HostEntry): string {
  const p = h.profile;
  if (!p) return 'no server profile';
  if (p.sandboxDir) {
    const pool = p.extraArgs.find((a) => a.startsWith('--innodb-buffer-pool-size='))?.split('=')[1];
    return `sandbox, port ${p.port}${pool ? `, buffer pool ${pool}` : ''}`;
  }
  return p.kind === 'systemd' ? `server: unit ${p.service}` : `server: ${p.datadir}`;
}

/**
 * The hosts the open experiment runs on, chosen with the list's checkboxes: one host is the design's
 * target; several are its `targets` (the first is the target), each running the same design at once.
 * At least one stays chosen. An edit of the design, saved like any other.
 */
function chooseHost(target: string, on: boolean): void {
  useApp.getState().edit((doc) => {
    const now = designHosts(doc.design);
    const next = on ? (now.includes(target) ? now : [...now, target]) : now.filter((h) => h !== target);
    if (!next.length) return doc;
    const { targets: _old, ...design } = doc.design;
    return { ...doc, design: { ...design, target: next[0], ...(next.length > 1 ? { targets: next } : {}) } };
  }, 'targets');
}

function HostList({ hosts, selected, onSelect, runsOn }: { hosts: HostEntry[]; selected: string | null; onSelect(t: string): void; runsOn: string[] | null }) {
  if (!hosts.length) return <p className="muted">No host yet: add this machine (local) or an SSH target below.</p>;
  return (
    <table className="data host-list" data-testid="host-list">
      <thead>
        <tr>
          {runsOn && <th style={{ width: "1%", whiteSpace: "nowrap" }} title="The hosts the open experiment runs on: several run the same design at once, each in its own order">Run on</th>}
          <th style={{ textAlign: 'left' }}>Target</th>
          <th style={{ textAlign: 'left' }}>Last probe</th>
          <th style={{ textAlign: 'left' }}>Server</th>
        </tr>
      </thead>
      <tbody>
        {hosts.map((h) => (
          <tr key={h.target} className={h.target === selected ? 'selected' : ''} onClick={() => onSelect(h.target)} data-testid="host-row" data-target={h.target}>
            {runsOn && (
              <td onClick={(e) => e.stopPropagation()}>
                <input
                  type="checkbox"
                  checked={runsOn.includes(h.target)}
                  disabled={runsOn.length === 1 && runsOn[0] === h.target}
                  title={runsOn.length === 1 && runsOn[0] === h.target ? 'The experiment runs on at least one host' : undefined}
                  onChange={(e) => chooseHost(h.target, e.target.checked)}
                  aria-label={`run the experiment on ${h.target}`}
                  data-testid="host-run-on"
                />
              </td>
            )}
            <td>
              <button className="link" onClick={() => onSelect(h.target)}>
                {h.target}
              </button>
            </td>
            <td>{h.lastProbe ? `${h.lastProbe.hostname} · ${h.lastProbe.cpuModel || h.lastProbe.kernel} · ${new Date(h.lastProbe.probedAt).toLocaleString()}` : 'never probed'}</td>
            <td>{serverSummary(h)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function HostsView() {
  const designTarget = useApp((s) => s.doc?.design.target);
  const design = useApp((s) => s.doc?.design);
  const runsOn = design ? designHosts(design) : null;
  const [hosts, setHosts] = useState<HostEntry[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [target, setTarget] = useState(designTarget ?? 'local');
  const [identity, setIdentity] = useState('');
  const [knownHosts, setKnownHosts] = useState('');
  const [acceptNew, setAcceptNew] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const reload = async (select?: string) => {
    const r = await getClient().call('host.list', {});
    if (r.ok) {
      setHosts(r.value);
      setSelected((s) => select ?? s ?? r.value.find((h) => h.target === designTarget)?.target ?? r.value[0]?.target ?? null);
    }
  };
  useEffect(() => {
    void reload();
  }, []);

  const entry = hosts.find((h) => h.target === selected) ?? null;
  const authFor = (h: HostEntry | null): TargetAuth => ({ ...h?.auth, acceptNewHostKey: acceptNew || undefined });
  const replace = (e: HostEntry) => setHosts((hs) => hs.map((h) => (h.target === e.target ? e : h)));

  const add = async (t: string, auth: TargetAuth) => {
    setBusy(true);
    setError(null);
    const r = await getClient().call('host.add', { target: t, auth });
    setBusy(false);
    if (!r.ok) return setError(r.message);
    await reload(r.value.target);
  };
  const forget = async (t: string) => {
    const r = await getClient().call('host.forget', { target: t });
    if (!r.ok) return setError(r.message);
    setSelected(null);
    await reload();
  };

  return (
    <div className="hosts" data-testid="hosts">
      <div className="panel">
        <h2>Hosts</h2>
        <HostList hosts={hosts} selected={selected} onSelect={setSelected} runsOn={runsOn} />
        {runsOn && (
          <p className="muted small" data-testid="host-runs-on">
            The experiment runs on {runsOn.join(', ')}
            {runsOn.length > 1 ? ': the same design on each at once, each host in its own order, the host a factor in Analysis' : ''}
            {runsOn.some((t) => !hosts.some((h) => h.target === t)) ? ' (not all in this list)' : ''}.
          </p>
        )}
      </div>
      <form
        className="panel"
        onSubmit={(e) => {
          e.preventDefault();
          void add(target.trim(), { identity: identity.trim() || undefined, knownHosts: knownHosts.trim() || undefined, acceptNewHostKey: acceptNew || undefined });
        }}
      >
        <h2>Add a host</h2>
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
            {busy ? 'Probing…' : 'Probe and add'}
          </button>
        </div>
        <label className="check">
          <input type="checkbox" checked={acceptNew} onChange={(e) => setAcceptNew(e.target.checked)} />
          Trust a host key never seen before without asking (a changed key is always refused)
        </label>
        <p className="muted small">Keys come from ssh-agent, the identity file, or ~/.ssh/config. Unknown host keys and passwords are asked for in a dialog; nothing secret is saved (the list keeps the key file&apos;s path only).</p>
        {error && (
          <p className="problem prewrap" role="alert" data-testid="host-error">
            {error}
          </p>
        )}
      </form>
      {entry && (
        <div className="panel" data-testid="host-detail">
          <div className="row">
            <h2>{entry.target}</h2>
            <button onClick={() => void add(entry.target, authFor(entry))} disabled={busy} data-testid="host-reprobe">
              {busy ? 'Probing…' : entry.lastProbe ? 'Probe again' : 'Probe'}
            </button>
            <button className="danger" onClick={() => void forget(entry.target)} disabled={busy || !!entry.profile} title={entry.profile ? 'Remove its sandbox or server profile first' : undefined} data-testid="host-forget">
              Forget this host
            </button>
          </div>
          <div className="host-columns">
            <div>
              {/* A host registered without a probe (the quickstart's sandbox on local, a profile made by the command line). */}
              <h3>{entry.lastProbe ? `Probed ${new Date(entry.lastProbe.probedAt).toLocaleString()}` : 'Not probed yet'}</h3>
              {entry.lastProbe ? <Fingerprint f={entry.lastProbe} /> : <p className="muted">Probe shows its CPUs, kernel, ASLR, governor, turbo, THP and mysqld, read-only.</p>}
              <NoiseCheckPanel key={entry.target} target={entry.target} auth={authFor(entry)} />
            </div>
            <ServerPanel key={entry.target} entry={entry} auth={authFor(entry)} onChanged={replace} />
          </div>
        </div>
      )}
      <DryRunPanel key={entry?.target ?? ''} target={entry?.target} auth={entry ? authFor(entry) : undefined} />
    </div>
  );
}
