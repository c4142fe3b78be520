// Saving what the UI produced (a plot image, a report): browser mode downloads through an
// <a download>; the desktop app asks where with the native dialog and writes through the backend.
import { getClient } from '../../client.js';

/** The bytes of a data URL (`data:image/png;base64,…` or URI-encoded SVG) as base64. */
export function dataUrlToBase64(url: string): string {
  const comma = url.indexOf(',');
  const meta = url.slice(0, comma);
  const body = url.slice(comma + 1);
  if (meta.endsWith(';base64')) return body;
  const bytes = new TextEncoder().encode(decodeURIComponent(body));
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function textToDataUrl(text: string, mime: string): string {
  return `data:${mime};charset=utf-8,${encodeURIComponent(text)}`;
}

function download(name: string, url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/**
 * Where a saveDataUrl went, in words: in browser mode a download, which lands in the browser's
 * downloads folder and not in the export folder shown above it (a new user looked there).
 */
export function savedWords(where: string): string {
  return getClient().transport === 'websocket' ? `downloaded by the browser as ${where} (into its downloads folder)` : `saved ${where}`;
}

/**
 * Save a data URL under a suggested file name. Returns where it went (a path in the desktop app,
 * the file name for a download), or null when the user cancelled the dialog.
 */
export async function saveDataUrl(name: string, url: string): Promise<string | null> {
  const client = getClient();
  if (client.transport === 'websocket') {
    download(name, url);
    return name;
  }
  const ext = name.split('.').pop() ?? '';
  const chosen = await client.call('dialog.save', { title: `Save ${name}`, suggested: name, extensions: [ext] });
  if (!chosen.ok) throw new Error(chosen.message);
  if (!chosen.value) return null;
  const r = await client.call('export.writeFile', { path: chosen.value, base64: dataUrlToBase64(url) });
  if (!r.ok) throw new Error(r.message);
  return r.value.path;
}
