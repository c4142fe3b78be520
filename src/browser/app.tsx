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

/** While the connection to the backend is being restored: said, so nothing looks frozen or finished. */
function TransportBanner() {
  const t = useApp((s) => s.transport);
  if (t.state !== 'reconnecting') return null;
  return (
    <div className="transport-banner" role="status" data-testid="transport-reconnecting">
      Reconnecting to the varlab backend…{t.attempt ? ` (attempt ${t.attempt})` : ''} Runs go on meanwhile; what happened is shown once the connection is back. If varlab was started again, open the address it printed: each launch has a token of its own.
    </div>
  );
}

export function App() {
  useWindowEvents();
  useTitle();
  useEffect(() => {
    void loadAppInfo();
    void refreshRecent();
    const off = [listenForPrompts(), listenForDocuments(), listenForTransport(() => void catchUpAfterReconnect())];
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
