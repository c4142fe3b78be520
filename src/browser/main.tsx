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
    const token = takeToken();
    if (!token) {
      root.textContent = 'This page needs the address that `npm start` or `npm run web` printed (it carries the token of this launch). Open that address instead.';
      // The address pasted into this tab changes only its fragment: start then, without a reload.
      window.addEventListener('hashchange', () => location.reload(), { once: true });
      return;
    }
    setClient(websocketClient(token));
  }
  createRoot(root).render(<App />);
}

start();
