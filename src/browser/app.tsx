// The application shell: header, the current view, the status line, and the dialogs.
import { useEffect } from 'react';
import { ChoiceDialog } from './components/ChoiceDialog.js';
import { ConfirmDialog } from './components/ConfirmDialog.js';
import { Header } from './components/Header.js';
import { OpenDialog } from './components/OpenDialog.js';
import { PromptDialog } from './components/PromptDialog.js';
import { SaveAsDialog } from './components/SaveAsDialog.js';
import { StatusLine } from './components/StatusLine.js';
import { useWindowEvents } from './components/useWindowEvents.js';
import { Welcome } from './components/Welcome.js';
import { listenForDocuments, listenForPrompts, listenForTransport, loadAppInfo, refreshRecent } from './store/actions.js';
import { useApp } from './store/index.js';
import type { TransportState } from '../common/api.js';
import { DesignerView } from './views/designer/DesignerView.js';
import { AnalysisView } from './views/analysis/AnalysisView.js';
import { CompareView } from './views/compare/CompareView.js';
import { HostsView } from './views/hosts/HostsView.js';
import { RunView } from './views/run/RunView.js';
import { catchUpAfterReconnect } from './views/run/session.js';
import { PlanView } from './views/plan/PlanView.js';
import { TrustNotice } from './views/export/TrustNotice.js';

function CurrentView() {
  const view = useApp((s) => s.view);
  const hasDoc = useApp((s) => s.doc !== null);
  const doc = useApp((s) => s.doc);
  // A newly opened document gets fresh editors (no half-typed text from the previous one).
  const generation = useApp((s) => s.generation);
  switch (view) {
    case 'design':
      return hasDoc ? <DesignerView key={generation} /> : <Welcome />;
    case 'plan':
      return hasDoc ? <PlanView /> : <Welcome />;
    case 'run':
      return <RunView />;
    case 'analysis':
      // The analysis (with its export bar) of the open experiment's results.
      return doc ? <AnalysisView key={generation} doc={doc} /> : <Welcome />;
    case 'compare':
      return <CompareView />;
    case 'hosts':
      return <HostsView />;
  }
}

/** The window title names the experiment and says when it has unsaved changes. */
function useTitle() {
  const name = useApp((s) => s.doc?.name);
  const dirty = useApp((s) => s.dirty);
  useEffect(() => {
    document.title = name ? `${dirty ? '● ' : ''}${name} · varlab` : 'varlab';
  }, [name, dirty]);
}

/** What the banner says when the page's own server told why the connection fails (TransportState.why). */
const WHY_NOT: Record<NonNullable<TransportState['why']>, string> = {
  refused: 'varlab answers at this address but refuses this tab: the address it was opened with is from another launch of varlab. Open the address varlab printed when it started (or paste it here): each launch has a token of its own.',
  unreachable: 'Nothing answers at this address: varlab is not running, or was stopped. Start it again (npm run web) and open the address it prints.',
};

/**
 * While there is no connection to the backend: said, so nothing looks frozen or finished. A tab that
 * never had one is connecting (and is told why it cannot, once known); only a connection that was up
 * and went away is being restored ("Reconnecting"), with runs going on meanwhile.
 */
function TransportBanner() {
  const t = useApp((s) => s.transport);
  if (t.state === 'connected') return null;
  const attempt = t.attempt ? ` (attempt ${t.attempt})` : '';
  const why = t.why ? WHY_NOT[t.why] : 'If varlab was started again, open the address it printed: each launch has a token of its own.';
  return (
    <div className="transport-banner" role="status" data-testid={`transport-${t.state}`}>
      {t.state === 'connecting'
        ? t.why
          ? `Cannot connect to the varlab backend${attempt}: ${why}`
          : `Connecting to the varlab backend…${attempt} ${why}`
        : // Runs go on while varlab does: not said once the page's server is gone or is another launch's.
          `Reconnecting to the varlab backend…${attempt} ${t.why ? '' : 'Runs go on meanwhile; what happened is shown once the connection is back. '}${why}`}
    </div>
  );
}

export function App() {
  useWindowEvents();
  useTitle();
  useEffect(() => {
    void loadAppInfo();
    void refreshRecent();
    const off = [
      listenForPrompts(),
      listenForDocuments(),
      listenForTransport((was) => {
        // A tab whose first connection came late asked for these when nothing answered.
        if (was === 'connecting') {
          void loadAppInfo();
          void refreshRecent();
        }
        void catchUpAfterReconnect();
      }),
    ];
    return () => off.forEach((f) => f());
  }, []);
  return (
    <div className="app">
      <Header />
      <main className="main">
        <TransportBanner />
        <TrustNotice />
        <CurrentView />
      </main>
      <StatusLine />
      <OpenDialog />
      <SaveAsDialog />
      <ConfirmDialog />
      <ChoiceDialog />
      <PromptDialog />
    </div>
  );
}
