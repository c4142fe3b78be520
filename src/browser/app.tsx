// The application shell: header, the current view, the status line, and the dialogs.
import { useEffect } from 'react';
import { ConfirmDialog } from './components/ConfirmDialog.js';
import { Header } from './components/Header.js';
import { OpenDialog } from './components/OpenDialog.js';
import { Placeholder } from './components/Placeholder.js';
import { PromptDialog } from './components/PromptDialog.js';
import { SaveAsDialog } from './components/SaveAsDialog.js';
import { StatusLine } from './components/StatusLine.js';
import { useWindowEvents } from './components/useWindowEvents.js';
import { Welcome } from './components/Welcome.js';
import { listenForPrompts, loadAppInfo, refreshRecent } from './store/actions.js';
import { useApp } from './store/index.js';
import { DesignerView } from './views/designer/DesignerView.js';
import { HostsView } from './views/hosts/HostsView.js';
import { PlanView } from './views/plan/PlanView.js';
import { TrustNotice } from './views/export/TrustNotice.js';
import { ExportView } from './views/export/ExportBar.js';

function CurrentView() {
  const view = useApp((s) => s.view);
  const hasDoc = useApp((s) => s.doc !== null);
  const hasResults = useApp((s) => Boolean(s.doc?.results?.restarts.length));
  // A newly opened document gets fresh editors (no half-typed text from the previous one).
  const generation = useApp((s) => s.generation);
  switch (view) {
    case 'design':
      return hasDoc ? <DesignerView key={generation} /> : <Welcome />;
    case 'plan':
      return hasDoc ? <PlanView /> : <Welcome />;
    case 'run':
      return <Placeholder title="Run">The live run view: progress through the plan, the current cell, execution timings as they arrive, pause, resume and cancel.</Placeholder>;
    case 'analysis':
      // Until the analysis views land: a file with results shows its plots with their export buttons.
      if (hasResults) return <ExportView />;
      return <Placeholder title="Analysis">Within-restart against between-restart spread per cell, the minimum detectable effect, and comparisons with a baseline cell.</Placeholder>;
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

export function App() {
  useWindowEvents();
  useTitle();
  useEffect(() => {
    void loadAppInfo();
    void refreshRecent();
    return listenForPrompts();
  }, []);
  return (
    <div className="app">
      <Header />
      <main className="main">
        <TrustNotice />
        <CurrentView />
      </main>
      <StatusLine />
      <OpenDialog />
      <SaveAsDialog />
      <ConfirmDialog />
      <PromptDialog />
    </div>
  );
}
