// A first run with nothing but the laptop (issue 4, point 8): on the welcome screen, the quickstart
// on the `local` target when a mysqld or mariadbd is installed here, else exactly what to install.
// The backend makes (or reuses) a sandbox and saves a short copy of the quickstart; this starts it
// with run.start like any file and shows the Run view live.
import { useEffect, useState } from 'react';
import type { LocalReadiness } from '../../common/api.js';
import { getClient } from '../client.js';
import { openPath } from '../store/actions.js';
import { useApp } from '../store/index.js';
import { startRun, useRunSession } from '../views/run/session.js';

type Phase = { kind: 'idle' } | { kind: 'working'; step: string } | { kind: 'failed'; message: string };

async function runQuickstart(setPhase: (p: Phase) => void, port?: number): Promise<void> {
  setPhase({ kind: 'working', step: 'Making a sandbox mysqld on this machine (its own data directory, port and socket)…' });
  const r = await getClient().call('local.quickstart', port ? { port } : {});
  if (!r.ok) {
    setPhase({ kind: 'failed', message: r.message });
    return;
  }
  setPhase({ kind: 'working', step: `Starting ${r.value.path}…` });
  await startRun(r.value.path, {});
  const error = useRunSession.getState().error;
  // Open the copy (the Run view follows the open file), then show the run, live or with its error.
  await openPath(r.value.path, { confirmed: true });
  useApp.getState().setView('run');
  setPhase(error ? { kind: 'failed', message: error } : { kind: 'idle' });
}

export function FirstRun() {
  const [ready, setReady] = useState<LocalReadiness | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [port, setPort] = useState('');
  const portProblem = port.trim() && !(/^\d+$/.test(port.trim()) && Number(port) >= 1024 && Number(port) <= 65535) ? 'a port from 1024 to 65535, or empty for any free one' : null;
  useEffect(() => {
    let live = true;
    void getClient()
      .call('local.readiness', {})
      .then((r) => {
        if (live && r.ok) setReady(r.value);
      });
    return () => {
      live = false;
    };
  }, []);
  if (!ready) return null;
  return (
    <section className="first-run" data-testid="first-run">
      <h3>First run on this machine</h3>
      {ready.mysqld ? (
        <>
          <p className="muted small">
            Uses {ready.version ?? ready.mysqld} in a throwaway sandbox (never your own server), and the quickstart with 2 restarts per cell, saved in a
            folder of your own.
          </p>
          <button className="primary big" disabled={phase.kind === 'working' || !!portProblem} onClick={() => void runQuickstart(setPhase, port.trim() ? Number(port) : undefined)} data-testid="run-quickstart-local">
            Run the quickstart on this machine
            <small>16 cells × 2 restarts, the plots fill in live</small>
          </button>
          <label className="field" style={{ alignItems: 'flex-start' }}>
            <span>Sandbox port (optional)</span>
            <input style={{ width: 140 }} value={port} onChange={(e) => setPort(e.target.value)} placeholder="any free port" size={12} aria-invalid={!!portProblem} data-testid="quickstart-port" />
            {portProblem && <span className="problem">{portProblem}</span>}
          </label>
        </>
      ) : (
        <p data-testid="install-hint">
          No mysqld or mariadbd is installed here, so there is nothing to run the quickstart on. {ready.installHint}
        </p>
      )}
      {phase.kind === 'working' && (
        <p className="muted" data-testid="first-run-step">
          {phase.step}
        </p>
      )}
      {phase.kind === 'failed' && (
        <p className="error" style={{ color: '#b42318' }} data-testid="first-run-error">
          {phase.message}
        </p>
      )}
    </section>
  );
}
