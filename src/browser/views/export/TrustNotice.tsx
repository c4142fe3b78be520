// Teammates' files: when the open experiment would run anything beyond varlab's built-in tunables
// (a command, a setup script, a start wrapper, extra server options…), list it and ask before the
// first run on the target. Nothing runs on opening; the answer is remembered per list and host.
import { useEffect, useState } from 'react';
import type { TrustCheck } from '../../../common/trust.js';
import { getClient } from '../../client.js';
import { useApp } from '../../store/index.js';
import { ConsentList } from './ConsentList.js';
import { useTrustGrants, trustGranted } from './trust-grants.js';
import { useRunSession } from '../run/session.js';

export function TrustNotice({ target }: { target?: string }) {
  const doc = useApp((s) => s.doc);
  const generation = useApp((s) => s.generation);
  // A consent given elsewhere (the Run view) checks again: the list goes once what it names is allowed.
  const grants = useTrustGrants((s) => s.count);
  // The Run view asks about the same list beside its Run (after a refused Run): one list on screen, not two.
  const view = useApp((s) => s.view);
  const path = useApp((s) => s.path);
  const runAsks = useRunSession((s) => s.consent !== null && s.consent.path === path) && view === 'run';
  const [answer, setAnswer] = useState<{ key: string; check: TrustCheck } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const runTarget = target ?? doc?.design.target;
  // Each opened document, and any change to what matters for consent, is checked afresh; editing
  // restarts or repetitions does not ask the backend again.
  const key = doc ? JSON.stringify([generation, grants, doc.design.workload.kind, doc.design.workload.command?.line, doc.design.workload.setupSql, doc.design.workload.queries, doc.design.factors, doc.design.serverProfile, runTarget]) : null;
  // An answer for an earlier document or design is not shown.
  const check = answer && answer.key === key ? answer.check : null;

  useEffect(() => {
    setError(null);
    if (!doc || key === null) return;
    let live = true;
    void getClient()
      .call('trust.check', { doc, target: runTarget })
      .then((r) => {
        if (!live) return;
        if (r.ok) setAnswer({ key, check: r.value });
        else setError(r.message);
      });
    return () => {
      live = false;
    };
    // The key holds what matters of doc: re-check only when it changes.
  }, [key]);

  async function allow() {
    const r = await getClient().call('trust.grant', { doc: doc!, target: runTarget, digest: check!.digest });
    if (r.ok && key !== null) {
      setAnswer({ key, check: r.value });
      // The Run view's list of the same run goes too: Run then starts it without asking again.
      const asked = useRunSession.getState().consent;
      if (asked && asked.check.digest === check!.digest && asked.check.target === check!.target) useRunSession.setState({ consent: null });
      trustGranted();
    }
    // The list changed since it was shown: nothing was allowed; the new list is shown to read.
    else if (!r.ok && r.code === 'needs-consent' && r.details?.consent && key !== null) setAnswer({ key, check: r.details.consent });
    else if (!r.ok) setError(r.message);
  }

  if (error) return <p className="problem" data-testid="trust-error">Could not check what this file would run: {error}</p>;
  if (!check || runAsks) return null;
  // A marker that the check is done and nothing needs consent (tests and screen readers can tell "not yet" from "nothing").
  if (!check.needsConsent) return <span hidden data-testid="trust-checked" data-target={check.target} data-name={doc?.name} />;
  return (
    <div className="warning" data-testid="trust-notice" style={{ marginBottom: 8 }}>
      <strong>This experiment would run these on {check.target}, beyond varlab's built-in tunables.</strong>
      <div className="small">Nothing has run. Read them before the first run on this host; varlab asks again if any of them changes or for another host.</div>
      <ConsentList check={check} />
      <button className="primary" data-testid="trust-allow" onClick={() => void allow()}>
        Allow on {check.target}
      </button>
    </div>
  );
}
