// Every request has a deadline (issue 24): a handler that never settles (a connection that hangs, a
// question nobody answers) must not leave its caller waiting for ever. When the deadline passes the
// caller is answered `timeout`; the handler cannot be stopped from outside and may still finish, so
// the message says so. Work that outlives a request (a run) is not a request: run.start answers once
// the run has started, and its events follow.
import { ApiError, type Method } from '../../common/api.js';

/** Requests that may connect to a host, ask a person (a host key, a password) or build a sandbox. */
const SLOW: ReadonlySet<Method> = new Set<Method>([
  'host.probe',
  'host.check',
  'host.add',
  'host.dryRun',
  'sandbox.create',
  'sandbox.addBuilds',
  'sandbox.removeBuild',
  'sandbox.remove',
  'profile.register',
  'server.check',
  'run.start',
  'run.attach',
  'run.detachedStatus',
  'export.plots',
  'local.quickstart',
]);

/** Milliseconds a request may take: fifteen minutes for a slow one (a person may be reading a prompt), three for the rest (a loaded machine reading a big file). */
export function deadlineMs(method: Method): number {
  return SLOW.has(method) ? 15 * 60_000 : 3 * 60_000;
}

/** The handler's answer, or a `timeout` ApiError once `ms` have passed. */
export function withDeadline<T>(method: Method, work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError('timeout', `${method} did not answer within ${Math.round(ms / 1000)} s; it was given up here (what it was doing may still finish)`)), ms);
    // A pending deadline must not keep a process (the CLI's in-process backend) alive.
    timer.unref();
  });
  // The work's own failure after the deadline has nobody to go to: it is handled, not unhandled.
  work.catch(() => {});
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
