/** `/design/factors/2/levels` → `design.factors[2].levels`: the path form every message uses. */
export function jsonPath(pointer: string | (string | number)[]): string {
  const parts = Array.isArray(pointer)
    ? pointer.map(String)
    : pointer
        .split('/')
        .slice(1)
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const p of parts) {
    if (/^\d+$/.test(p)) out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out || '(document)';
}
