// --dry-run in the app: for each cell, the one script its restart sends to the target (asked of the
// target as the run asks it), then the server-side steps. Nothing runs. In the Hosts view the target
// is the host the user selected (the open experiment run there), else the one saved in the file: the
// button names the host it connects to and reads, so pressing it is the user asking for that host
// (a file alone never makes varlab connect).
import { useState } from 'react';
import type { DryRun, TargetAuth } from '../../../common/api.js';
import { getClient } from '../../client.js';
import { useApp } from '../../store/index.js';

export function DryRunPanel({ target: chosen, auth }: { target?: string; auth?: TargetAuth }) {
  const design = useApp((s) => s.doc?.design);
  const [dry, setDry] = useState<DryRun | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!design) {
    return chosen ? (
      <p className="muted small" data-testid="host-dry-run-none">
        Open an experiment to see, cell by cell, what a run of it would send to {chosen}.
      </p>
    ) : null;
  }
  const target = chosen ?? design.target;
  const show = async () => {
    setBusy(true);
    const r = await getClient().call('host.dryRun', { design, target, ...(auth ? { auth } : {}) });
    setBusy(false);
    if (r.ok) {
      setDry(r.value);
      setError(null);
    } else setError(r.message);
  };
  return (
    <div className="panel" data-testid="host-dry-run">
      <div className="row">
        <h2>Commands on {target}</h2>
        <button onClick={() => void show()} disabled={busy} data-testid="host-dry-run-show">
          {busy ? `Reading ${target}…` : `Dry run: read ${target}${dry ? ' again' : ''}`}
        </button>
      </div>
      <p className="muted small">
        {target === 'local' ? 'Reads this computer' : `Connects to ${target} with your keys to read it`} (read only: CPUs, NUMA nodes, mysqld), then shows for each cell of the open experiment the one script its restart sends to the target, exactly as the run sends it, and what runs over the server connection. Nothing is run.
      </p>
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
