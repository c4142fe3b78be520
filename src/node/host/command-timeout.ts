// A command that exec() cut at its limit (its timeoutMs), on any target: a local process, a command of
// the SSH shell, an SSH channel of its own. A type of its own, so that a caller that says more of it
// (runScript names the script and the part it said it was doing) knows it by its type and its limit,
// never by the words of its message, which can then be worded anew without breaking that caller.
import { ApiError } from '../../common/api.js';

export class CommandTimedOut extends ApiError {
  /**
   * `what`: the command as the message names it ("a local command", "a command on ssh://db1");
   * `more`: what else is known of it (": it was stopping mysqld").
   */
  constructor(
    what: string,
    readonly limitMs: number,
    more = '',
  ) {
    super('connection', `${what} did not finish within ${Math.round(limitMs / 1000)} s${more}`);
  }
}
