// The contract's arguments, checked at run time (issue 26). A request arrives from a renderer or a
// WebSocket page as JSON; TypeScript's types say nothing about what really came. Each method's
// arguments have a schema here, and `SAME_AS_CONTRACT` below fails to compile when a schema and
// `Requests[M]['args']` in common/api.ts say different things, so the two cannot drift apart.
// Unknown fields are refused too: a misspelt `detatch: true` must not start an attached run.
//
// Zod (a maintained, dependency-free validator) gives each failure its path, so the refusal names the
// field ("run.start: auth.identity: expected string, received number"), which hand-written checks per
// handler did only for some fields of some methods.
import { z } from 'zod';
import { ApiError, type ArgsOf, type Method } from '../../common/api.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';

const text = z.string();
const nonEmpty = z.string().min(1, 'must not be empty');
const none = z.strictObject({});
const auth = z.strictObject({ identity: text.optional(), knownHosts: text.optional(), acceptNewHostKey: z.boolean().optional() });
// The document's own rules are the experiment validator's (every handler that takes one runs it);
// here only its shape as an object is checked, so a string or an array is refused by name.
const anObject = <T>(what: string) => z.custom<T>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), `expected ${what} (an object)`);
const doc = anObject<ExperimentDoc>('an experiment document');
const design = anObject<ExperimentDoc['design']>('a design');
const port = z.number().int().min(1).max(65535);
const runId = z.strictObject({ runId: nonEmpty });
const exportArgs = {
  path: text.optional(),
  doc: doc.optional(),
  dir: nonEmpty,
  warmup: z.number().int().min(0).optional(),
  baseline: text.optional(),
  alpha: z.number().gt(0).lt(1).optional(),
  adjustment: z.enum(['holm', 'bh']).optional(),
  acrossRuns: z.boolean().optional(),
};
// Stop when answered from the Run view: the same bounds as --effect and --max-restarts (and design.stopping's schema).
const untilAnswered = z.union([z.literal(false), z.strictObject({ effect: z.number().gt(0).lt(100).optional(), maxRestarts: z.number().int().min(3).max(10_000).optional() })]);
const runOf = { path: text.optional(), doc: doc.optional(), target: text.optional(), resume: z.boolean().optional(), fresh: z.boolean().optional() };

export const ARGS = {
  'app.info': none,
  'experiment.example': z.strictObject({ name: nonEmpty }),
  'experiment.open': z.strictObject({ path: nonEmpty }),
  'experiment.parse': z.strictObject({ name: text, text }),
  'experiment.save': z.strictObject({ path: nonEmpty, doc, baseRevision: text.nullable().optional(), choice: z.enum(['keep-results-copy', 'overwrite']).optional() }),
  'experiment.close': z.strictObject({ path: text }),
  'experiment.recent': none,
  'experiment.readSql': z.strictObject({ path: nonEmpty }),
  'dialog.open': z.strictObject({ title: text.optional(), extensions: z.array(text), folder: z.boolean().optional() }),
  'dialog.save': z.strictObject({ title: text.optional(), suggested: text, extensions: z.array(text) }),
  'host.probe': z.strictObject({ target: nonEmpty, auth: auth.optional() }),
  'host.check': z.strictObject({ target: nonEmpty, auth: auth.optional() }),
  'host.dryRun': z.strictObject({ design, target: text.optional(), auth: auth.optional() }),
  'host.list': none,
  'host.add': z.strictObject({ target: nonEmpty, auth: auth.optional() }),
  'host.forget': z.strictObject({ target: nonEmpty }),
  'sandbox.create': z.strictObject({
    target: nonEmpty,
    auth: auth.optional(),
    parent: text.optional(),
    port: port.optional(),
    bufferPool: text.optional(),
    options: z.array(text).optional(),
    replace: z.boolean().optional(),
    builds: z.array(text).optional(),
  }),
  'sandbox.addBuilds': z.strictObject({ target: nonEmpty, auth: auth.optional(), builds: z.array(text) }),
  'sandbox.removeBuild': z.strictObject({ target: nonEmpty, auth: auth.optional(), name: nonEmpty }),
  'sandbox.remove': z.strictObject({ target: nonEmpty, auth: auth.optional() }),
  // A server profile is checked field by field by its own validator (profile.ts) in the handler.
  'profile.register': z.strictObject({ target: nonEmpty, profile: anObject<ArgsOf<'profile.register'>['profile']>('a server profile'), replace: z.boolean().optional(), auth: auth.optional() }),
  'profile.unregister': z.strictObject({ target: nonEmpty }),
  'server.check': z.strictObject({ target: nonEmpty, auth: auth.optional() }),
  'prompt.answer': z.strictObject({ id: nonEmpty, accept: z.boolean(), secret: text.optional(), remember: z.boolean().optional() }),
  'run.start': z.strictObject({ path: nonEmpty, target: text.optional(), auth: auth.optional(), resume: z.boolean().optional(), fresh: z.boolean().optional(), missing: z.boolean().optional(), detach: z.boolean().optional(), untilAnswered: untilAnswered.optional() }),
  'run.attach': z.strictObject({ path: nonEmpty, target: text.optional() }),
  'run.stopFollowing': runId,
  'run.detachedStatus': z.strictObject({ path: nonEmpty, target: text.optional() }),
  'run.check': z.strictObject({ path: nonEmpty, target: text.optional() }),
  'run.pause': runId,
  'run.resume': runId,
  'run.cancel': runId,
  'run.status': none,
  'run.events': z.strictObject({ runId: nonEmpty, afterSeq: z.number().int().min(0) }),
  'export.writeFile': z.strictObject({ path: nonEmpty, base64: text }),
  'export.plots': z.strictObject({ ...exportArgs, scale: z.number().positive().optional(), format: z.enum(['png', 'svg']).optional() }),
  'export.csv': z.strictObject(exportArgs),
  'trust.check': z.strictObject(runOf),
  'trust.grant': z.strictObject({ ...runOf, digest: nonEmpty }),
  'local.readiness': none,
  'local.quickstart': z.strictObject({ dir: text.optional(), port: port.optional() }),
} satisfies { [M in Method]: z.ZodType };

// Compile-time: every schema accepts exactly the contract's type (both ways, and the same field names:
// an optional field left out of a schema would otherwise still be assignable), or this line names the method.
type Both<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Same<A, B> = Both<A, B> extends true ? Both<keyof A, keyof B> : false;
type Drift = { [M in Method]: Same<z.infer<(typeof ARGS)[M]>, ArgsOf<M>> extends true ? never : M }[Method];
export const SAME_AS_CONTRACT: [Drift] extends [never] ? true : { schemaDiffersFromContract: Drift } = true;

/** The request's arguments as the contract says, or an `invalid-argument` ApiError naming the method and each wrong field. */
export function checkedArgs<M extends Method>(method: M, args: unknown): ArgsOf<M> {
  const got = ARGS[method].safeParse(args ?? {});
  if (got.success) return got.data as ArgsOf<M>;
  const said = got.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`);
  throw new ApiError('invalid-argument', `${method}: ${said.join('; ')}`);
}
