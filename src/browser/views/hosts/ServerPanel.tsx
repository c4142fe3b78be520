// The server profile of one host: what is registered (a sandbox, or an existing server), its own
// options checked on the live server, and the forms that make a sandbox or register a server, on
// `local` or over SSH, without the command line.
import { useState } from 'react';
import type { HostEntry, HostProfile, ServerCheck, TargetAuth } from '../../../common/api.js';
import { checkWord, type ServerProfile } from '../../../common/experiment/types.js';
import { buildFromSetting } from '../../../common/profile.js';
import { buildNotes } from '../../../common/tunables/build.js';
import { getClient } from '../../client.js';
import { KeyValues } from './Fingerprint.js';

interface Props {
  entry: HostEntry;
  auth: TargetAuth;
  onChanged(entry: HostEntry): void;
}

/** One action at a time, its problem shown where it was asked for. */
function useAction() {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (what: string, fn: () => Promise<string | null>) => {
    setBusy(what);
    setError(null);
    try {
      setError(await fn());
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, run };
}

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** What is wrong with the first bad `NAME=PATH` line, before anything is sent. */
function buildProblem(settings: string[]): string | null {
  for (const b of settings) {
    try {
      buildFromSetting(b);
    } catch (e) {
      return (e as Error).message.replace(/^--build /, '');
    }
  }
  return null;
}

function ProfileSummary({ p }: { p: HostProfile }) {
  const rows: [string, string][] = p.sandboxDir
    ? [
        ['Sandbox', p.sandboxDir],
        // With builds registered, which server a design without the build factor starts (walk21: it was not said).
        ['mysqld', p.builds?.length ? `${p.mysqld}, data directory ${p.datadir} (what a design without the “Server build” factor runs)` : p.mysqld],
        ['Port and socket', `${p.port}, ${p.socket}`],
      ]
    : [
        ['Registered server', p.kind === 'systemd' ? `systemd unit ${p.service}` : `${p.mysqld} (varlab starts it)`],
        ['Data directory', p.datadir],
        ['Port and socket', `${p.port}${p.socket ? `, ${p.socket}` : ''}`],
        ['Client account', p.user],
        ['Root commands', p.sudo ? 'through sudo -n' : 'as the login user'],
      ];
  rows.push(['Server options', p.extraArgs.join('\n') || 'none']);
  // The levels of the build factor: what each starts, what its live process ran when it was registered.
  if (p.builds?.length) rows.push(['Server builds', p.builds.map((b) => `${b.name}: ${b.mysqld}${b.exe !== b.mysqld ? ` (runs ${b.exe})` : ''}, ${b.version ?? 'version unknown'}, sha256 ${b.sha256.slice(0, 12)}…, data directory ${b.datadir}`).join('\n')]);
  const notes = buildNotes(p.builds ?? []);
  return (
    <>
      <KeyValues rows={rows} testid="host-profile" />
      {notes.map((n) => (
        <p key={n} className="notice small" data-testid="build-note">
          {n.replace(/^note: (.)/, (_, c: string) => c.toUpperCase())}
        </p>
      ))}
    </>
  );
}

/**
 * The sandbox's builds, one at a time: add one (NAME=PATH; its own data directory, made by it, the
 * others left as they are) or remove one (its data directory deleted). Before, adding a build was
 * "Replace" with every build listed again, which made every data directory anew.
 */
function BuildsEditor({ entry, auth, onChanged }: Props) {
  const [setting, setSetting] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const a = useAction();
  const p = entry.profile!;
  const problem = setting.trim() ? buildProblem([setting.trim()]) : null;
  const add = () =>
    a.run('add', async () => {
      setNote(null);
      const r = await getClient().call('sandbox.addBuilds', { target: entry.target, auth, builds: [setting.trim()] });
      if (!r.ok) return r.message;
      setNote(`Added ${setting.trim().split('=')[0]}: its own data directory, made by it; the other builds are as they were.`);
      setSetting('');
      onChanged(r.value.entry);
      return null;
    });
  const remove = (name: string) =>
    a.run(`remove ${name}`, async () => {
      setNote(null);
      const r = await getClient().call('sandbox.removeBuild', { target: entry.target, auth, name });
      if (!r.ok) return r.message;
      setNote(`Removed ${name} and its data directory.`);
      onChanged(r.value);
      return null;
    });
  return (
    <form
      className="host-form"
      data-testid="builds-editor"
      onSubmit={(e) => {
        e.preventDefault();
        if (setting.trim() && !problem) void add();
      }}
    >
      <h3>Server builds of this sandbox: the levels of the factor “Server build”</h3>
      {p.builds?.length ? (
        <div className="row">
          {p.builds.map((b) => (
            <button key={b.name} type="button" className="danger" disabled={!!a.busy} onClick={() => void remove(b.name)} data-testid="build-remove" data-build={b.name} title={`Remove build ${b.name}: its data directory ${b.datadir} is deleted`}>
              {a.busy === `remove ${b.name}` ? `Removing ${b.name}…` : `Remove ${b.name}`}
            </button>
          ))}
        </div>
      ) : (
        <p className="muted small">None yet: add a build to compare it with another (a patch against its baseline).</p>
      )}
      <div className="row">
        <label className="field">
          <span>Add a build, NAME=PATH: a binary, a script that execs one, or an installation folder (it gets its own data directory, made by it)</span>
          <input value={setting} onChange={(e) => setSetting(e.target.value)} size={44} placeholder="B=/home/me/build/sql/mariadbd" aria-invalid={!!problem} data-testid="build-add-setting" />
          {problem && <span className="problem">{problem}</span>}
        </label>
      </div>
      <button type="submit" disabled={!!a.busy || !setting.trim() || !!problem} data-testid="build-add">
        {a.busy === 'add' ? 'Making its data directory and starting it once…' : 'Add the build'}
      </button>
      {a.error && (
        <p className="problem prewrap" role="alert" data-testid="builds-error">
          {a.error}
        </p>
      )}
      {note && !a.error && (
        <p className="notice" data-testid="builds-note">
          {note}
        </p>
      )}
    </form>
  );
}

function CheckTable({ check }: { check: ServerCheck }) {
  return (
    <div data-testid="host-check">
      <p className="small">
        Started as a run starts it (pid {check.pid}, listening after {check.readyMs} ms), its options read back, then stopped:
      </p>
      <table className="data">
        <thead>
          <tr>
            <th style={{ textAlign: 'left' }}>option</th>
            <th style={{ textAlign: 'left' }}>asked for</th>
            <th style={{ textAlign: 'left' }}>the live server says</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {check.options.map((o) => (
            <tr key={o.tunable} data-testid="host-check-row">
              <td>{o.tunable}</td>
              <td>{o.level}</td>
              <td>{o.observed}</td>
              <td className={o.ok ? '' : 'problem'}>{`${checkWord(o).mark} ${checkWord(o).word}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SandboxForm({ entry, auth, onChanged }: Props) {
  const [bufferPool, setBufferPool] = useState('128M');
  const [parent, setParent] = useState('');
  const [port, setPort] = useState('');
  const [options, setOptions] = useState('');
  const [builds, setBuilds] = useState('');
  const [replace, setReplace] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const a = useAction();
  const portProblem = port.trim() && !/^\d+$/.test(port.trim()) ? 'a whole number from 1024 to 65535' : null;
  const buildsProblem = buildProblem(lines(builds));
  const create = () =>
    a.run('create', async () => {
      const r = await getClient().call('sandbox.create', {
        target: entry.target,
        auth,
        bufferPool: bufferPool.trim() || undefined,
        parent: parent.trim() || undefined,
        port: port.trim() ? Number(port) : undefined,
        options: lines(options),
        builds: lines(builds),
        replace,
      });
      if (!r.ok) return r.message;
      setNote(r.value.reused ? `The sandbox at ${r.value.entry.profile?.sandboxDir} is reused: it already has these settings.` : `Made ${r.value.entry.profile?.sandboxDir}${r.value.replaced ? ` (replacing ${r.value.replaced.sandboxDir ?? 'the registered server'})` : ''}.`);
      onChanged(r.value.entry);
      return null;
    });
  return (
    <form
      className="host-form"
      data-testid="sandbox-form"
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <h3>Make a sandbox: a throwaway mysqld with its own data directory, port and socket</h3>
      <div className="row">
        <label className="field">
          <span>Buffer pool</span>
          <input value={bufferPool} onChange={(e) => setBufferPool(e.target.value)} size={8} data-testid="sandbox-buffer-pool" />
        </label>
        <label className="field">
          <span>Port (optional)</span>
          <input value={port} onChange={(e) => setPort(e.target.value)} placeholder="random" size={8} aria-invalid={!!portProblem} data-testid="sandbox-port" />
          {portProblem && <span className="problem">{portProblem}</span>}
        </label>
        <label className="field">
          <span>Folder on the target (optional)</span>
          <input value={parent} onChange={(e) => setParent(e.target.value)} placeholder="/var/tmp" size={18} data-testid="sandbox-parent" />
        </label>
        <label className="field">
          <span>Server options, one NAME=VALUE a line (optional)</span>
          <textarea value={options} onChange={(e) => setOptions(e.target.value)} rows={2} cols={36} placeholder="innodb_flush_method=O_DIRECT" data-testid="sandbox-options" />
        </label>
        <label className="field">
          <span>Server builds, one NAME=PATH a line: a binary, a script that execs one, or an installation folder (optional; each gets its own data directory)</span>
          <textarea value={builds} onChange={(e) => setBuilds(e.target.value)} rows={2} cols={36} placeholder={'A=/opt/mariadb-11.4/bin/mariadbd\nB=/home/me/build/sql/mariadbd'} aria-invalid={!!buildsProblem} data-testid="sandbox-builds" />
          {buildsProblem && <span className="problem">{buildsProblem}</span>}
        </label>
      </div>
      {entry.profile && (
        <label className="check">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} data-testid="sandbox-replace" />
          Replace {entry.profile.sandboxDir ? `the sandbox at ${entry.profile.sandboxDir} (its data is deleted)` : 'the registered server (its data is left alone)'}
        </label>
      )}
      <button type="submit" className="primary" disabled={!!a.busy || !!portProblem || !!buildsProblem} data-testid="sandbox-create">
        {a.busy ? 'Making the sandbox…' : 'Make the sandbox'}
      </button>
      {a.error && (
        <p className="problem prewrap" role="alert" data-testid="sandbox-error">
          {a.error}
        </p>
      )}
      {note && !a.error && (
        <p className="notice" data-testid="sandbox-note">
          {note}
        </p>
      )}
    </form>
  );
}

function RegisterForm({ entry, auth, onChanged }: Props) {
  const mysqld = entry.lastProbe?.mysqld;
  const [kind, setKind] = useState<'direct' | 'systemd'>(entry.lastProbe?.systemd ? 'systemd' : 'direct');
  const [f, setF] = useState({ mysqld: mysqld?.binary ?? '', service: 'mariadb', datadir: mysqld?.datadir ?? '', socket: mysqld?.socket ?? '', port: '3306', user: 'root', errorLog: '', osUser: '', options: '' });
  const [sudo, setSudo] = useState(entry.lastProbe ? entry.lastProbe.uid !== 0 : false);
  const [replace, setReplace] = useState(false);
  const a = useAction();
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const field = (k: keyof typeof f, label: string, size = 30, placeholder?: string) => (
    <label className="field">
      <span>{label}</span>
      <input value={f[k]} onChange={set(k)} size={size} placeholder={placeholder} data-testid={`register-${k}`} />
    </label>
  );
  const register = () =>
    a.run('register', async () => {
      const profile: ServerProfile = {
        kind,
        mysqld: f.mysqld.trim(),
        service: kind === 'systemd' ? f.service.trim() : undefined,
        datadir: f.datadir.trim(),
        socket: f.socket.trim(),
        port: Number(f.port),
        user: f.user.trim() || 'root',
        errorLog: f.errorLog.trim() || undefined,
        osUser: f.osUser.trim() || undefined,
        extraArgs: lines(f.options),
        sudo,
      };
      const r = await getClient().call('profile.register', { target: entry.target, profile, replace, auth });
      if (!r.ok) return r.message;
      onChanged(r.value);
      return null;
    });
  return (
    <form
      className="host-form"
      data-testid="register-form"
      onSubmit={(e) => {
        e.preventDefault();
        void register();
      }}
    >
      <h3>Or register an existing server</h3>
      <div className="radios">
        <label className={`radio ${kind === 'direct' ? 'on' : ''}`}>
          <input type="radio" checked={kind === 'direct'} onChange={() => setKind('direct')} /> varlab starts and stops mysqld itself
        </label>
        <label className={`radio ${kind === 'systemd' ? 'on' : ''}`}>
          <input type="radio" checked={kind === 'systemd'} onChange={() => setKind('systemd')} data-testid="register-systemd" /> through a systemd unit
        </label>
      </div>
      <div className="row">
        {kind === 'systemd' && field('service', 'systemd unit', 16)}
        {field('mysqld', 'mysqld binary', 26)}
        {field('datadir', 'Data directory', 26)}
        {field('socket', 'Socket', 26)}
        {field('port', 'Port', 6)}
      </div>
      <div className="row">
        {field('user', 'Client account', 10)}
        {kind === 'direct' && field('errorLog', 'Error log (optional)', 26)}
        {kind === 'direct' && field('osUser', 'Run mysqld as (optional)', 10, 'mysql')}
        <label className="field">
          <span>Server options, one --option=value a line (optional)</span>
          <textarea value={f.options} onChange={set('options')} rows={2} cols={32} data-testid="register-options" />
        </label>
      </div>
      <label className="check">
        <input type="checkbox" checked={sudo} onChange={(e) => setSudo(e.target.checked)} /> Commands that need root go through sudo -n
      </label>
      {entry.profile && (
        <label className="check">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} /> Replace the current {entry.profile.sandboxDir ? 'sandbox (its data is deleted)' : 'registered server'}
        </label>
      )}
      <button type="submit" disabled={!!a.busy} data-testid="register-submit">
        {a.busy ? 'Checking on the target…' : 'Register this server'}
      </button>
      <p className="muted small">The client account&apos;s password is asked when varlab connects and never saved.</p>
      {a.error && (
        <p className="problem prewrap" role="alert" data-testid="register-error">
          {a.error}
        </p>
      )}
    </form>
  );
}

export function ServerPanel(props: Props) {
  const { entry, auth, onChanged } = props;
  const [check, setCheck] = useState<ServerCheck | null>(null);
  const a = useAction();
  const p = entry.profile;
  const checkServer = () =>
    a.run('check', async () => {
      setCheck(null);
      const r = await getClient().call('server.check', { target: entry.target, auth });
      if (!r.ok) return r.message;
      setCheck(r.value);
      return null;
    });
  const remove = () =>
    a.run('remove', async () => {
      const r = p?.sandboxDir ? await getClient().call('sandbox.remove', { target: entry.target, auth }) : await getClient().call('profile.unregister', { target: entry.target });
      if (!r.ok) return r.message;
      setCheck(null);
      onChanged(r.value);
      return null;
    });
  return (
    <div data-testid="host-server">
      <h3>Server profile: how varlab starts mysqld on {entry.target}</h3>
      {p ? (
        <>
          <ProfileSummary p={p} />
          <div className="row">
            <button onClick={() => void checkServer()} disabled={!!a.busy} data-testid="host-check-run">
              {a.busy === 'check' ? 'Starting it…' : 'Start it and check its options'}
            </button>
            <button className="danger" onClick={() => void remove()} disabled={!!a.busy} data-testid="host-profile-remove">
              {a.busy === 'remove' ? 'Removing…' : p.sandboxDir ? 'Remove the sandbox' : 'Forget this server'}
            </button>
          </div>
          {a.error && (
            <p className="problem prewrap" role="alert" data-testid="host-server-error">
              {a.error}
            </p>
          )}
          {check && <CheckTable check={check} />}
          {p.sandboxDir && <BuildsEditor {...props} />}
        </>
      ) : (
        <p className="warning">No server profile yet: a run on {entry.target} needs one. Make a sandbox, or register the server you have.</p>
      )}
      {p ? (
        <details className="host-replace">
          <summary>Replace it: make a new sandbox, or register another server</summary>
          <SandboxForm {...props} />
          <RegisterForm {...props} />
        </details>
      ) : (
        <>
          <SandboxForm {...props} />
          <RegisterForm {...props} />
        </>
      )}
    </div>
  );
}
