// Renderer entry: pick the transport, then render the app.
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { setClient } from './client.js';
import { electronBridge, electronClient } from './transport/electron.js';
import { takeToken, websocketClient } from './transport/websocket.js';
import './styles.css';

function start() {
  const root = document.getElementById('root')!;
  const bridge = electronBridge();
  if (bridge) {
    setClient(electronClient(bridge));
  } else {
    // An address pasted into this tab changes only its fragment, and the page would go on with the
    // token it has (none, or a former launch's after varlab was started again): start anew with it.
    window.addEventListener('hashchange', () => {
      if (/(?:^|[#&])token=/.test(location.hash)) location.reload();
    });
    const token = takeToken();
    if (!token) {
      root.textContent = 'This page needs the address that `npm start` or `npm run web` printed (it carries the token of this launch). Open that address instead.';
      return;
    }
    setClient(websocketClient(token));
  }
  createRoot(root).render(<App />);
}

start();
