// The Hosts view's noise check (issue 22, Deliver 5): what makes the selected host noisy for
// benchmarks, each setting with its state and advice, as `varlab probe TARGET --check` prints it
// (the same judgement: common/host-check.ts).
import { useState } from 'react';
import type { TargetAuth } from '../../../common/api.js';
import type { HostCheckItem } from '../../../common/host-check.js';
import { getClient } from '../../client.js';

export function NoiseCheckPanel({ target, auth }: { target: string; auth: TargetAuth }) {
  const [items, setItems] = useState<HostCheckItem[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const check = async () => {
    setBusy(true);
    setError(null);
    const r = await getClient().call('host.check', { target, auth });
    setBusy(false);
    if (!r.ok) return setError(r.message);
    setItems(r.value.check);
  };
  const advice = items?.filter((i) => !i.ok && i.advice) ?? [];
  return (
    <div data-testid="host-noise-check">
      <div className="row">
        <h3>Noise check</h3>
        <button onClick={() => void check()} disabled={busy} data-testid="host-noise-check-run" title="Read-only: reads the host's settings and samples its processes for one second">
          {busy ? 'Checking…' : items ? 'Check again' : 'Check for noise'}
        </button>
      </div>
      {error && (
        <p className="problem prewrap" role="alert">
          {error}
        </p>
      )}
      {items && (
        <>
          <table className="data" data-testid="host-noise-items">
            <tbody>
              {items.map((i) => (
                <tr key={i.what} data-ok={i.ok ? 'yes' : 'no'}>
                  <td>{i.ok ? '✓' : '⚠'}</td>
                  <th style={{ textAlign: 'left' }}>{i.what}</th>
                  <td>{i.processes ? i.processes.map((p) => `${p.comm} (pid ${p.pid}) ${p.cpuPct.toFixed(0)}%`).join(', ') : i.state}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {advice.length ? (
            <ul data-testid="host-noise-advice">
              {advice.map((i) => (
                <li key={i.what}>
                  <b>{i.what}</b>: {i.advice}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No advice: the host is ready for benchmarking.</p>
          )}
        </>
      )}
    </div>
  );
}
