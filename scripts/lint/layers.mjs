// The layer rule of ARCHITECTURE.md as an ESLint rule: each folder names what it may import, and anything
// else is an error. An allow-list, because a deny-list lets through every package nobody thought to name
// (ws, zlib or playwright-core in src/common passed the old rule).
//
// An entry is a folder of the repository written with a trailing slash (`src/common/`), a package
// (`react`, which also allows `react/jsx-runtime`), a scope (`@stdlib/*`) or `node:*` for Node's own
// modules, with or without their `node:` prefix (`zlib` is Node's, whatever npm has by that name).
// Relative imports are resolved against the importing file, so `../../src/browser/x.js` from scripts/
// and `../browser/x.js` from src/node both land in src/browser/.
import { isBuiltin } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';

/** The folder of the repository that a file or resolved import is in: its first entry in `folders` that contains it. */
function folderOf(path, folders) {
  const p = path.split(sep).join('/');
  return folders.find((f) => p === f.slice(0, -1) || p.startsWith(f)) ?? p.split('/')[0] + (p.includes('/') ? '/' : '');
}

/** The package an import names: `@scope/name` or `name`, without its subpath. */
function packageOf(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function matches(entry, target) {
  if (entry === 'node:*') return target.builtin;
  if (entry.endsWith('/')) return target.folder === entry;
  if (entry.endsWith('/*')) return !target.folder && !target.builtin && target.pkg.startsWith(entry.slice(0, -1));
  return !target.folder && !target.builtin && target.pkg === entry;
}

/**
 * layers: [{ folder: 'src/common/', may: [...] } | { folder: 'scripts/', mayNot: [...] }], most specific folder first.
 * Folders not named are not checked.
 */
export function layerPlugin(layers) {
  const folders = layers.map((l) => l.folder);
  const rule = {
    meta: { type: 'problem', schema: [], docs: { description: 'each folder imports only what its layer allows (ARCHITECTURE.md)' } },
    create(context) {
      const cwd = context.cwd;
      const file = relative(cwd, context.filename);
      const here = folderOf(file, folders);
      const layer = layers.find((l) => l.folder === here);
      if (!layer) return {};
      const check = (node, spec) => {
        if (typeof spec !== 'string') return;
        const local = spec.startsWith('.') || spec.startsWith('/');
        const target = local
          ? { folder: folderOf(relative(cwd, resolve(dirname(context.filename), spec)), folders), name: spec }
          : { builtin: isBuiltin(spec), pkg: packageOf(spec), name: spec };
        // A folder may always import from itself.
        if (target.folder === layer.folder) return;
        const allowed = layer.may ? layer.may.some((e) => matches(e, target)) : !layer.mayNot.some((e) => matches(e, target));
        if (allowed) return;
        const what = target.folder ? `'${spec}' (in ${target.folder})` : target.builtin ? `Node's '${spec}'` : `the package '${target.pkg}'`;
        const list = layer.may ? `may import only ${[layer.folder, ...layer.may].join(', ')}` : `may import anything but ${layer.mayNot.join(', ')}`;
        context.report({ node, message: `${layer.folder} ${list}: ${what} is not allowed. ${layer.why}` });
      };
      const fromSource = (node) => check(node.source, node.source?.value);
      return {
        ImportDeclaration: fromSource,
        ExportAllDeclaration: fromSource,
        ExportNamedDeclaration: (node) => node.source && fromSource(node),
        ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
        // `typeof import('x')` in a type.
        TSImportType: (node) => check(node, node.source?.value ?? node.argument?.literal?.value),
        TSExternalModuleReference: (node) => check(node, node.expression?.value),
      };
    },
  };
  return { rules: { imports: rule } };
}
