// What a restart that goes wrong does to the run: one table, followed by the engine (attached runs) and
// compiled into the detached runner's script, so `--detach` changes where a run happens and nothing else.
//
// | what went wrong                         | the restart                        | the run                          |
// |-----------------------------------------|------------------------------------|----------------------------------|
// | mysqld did not start                    | recorded as failed, with why       | goes on; ends after N in a row   |
// | … and it will fail the same way again   | not recorded                       | ends at once, with the cause     |
// |   (no binary, an option it refuses)     |                                    |                                  |
// | a tunable did not take effect (verify)  | recorded as verify-failed, unmeasured | goes on                       |
// | the connection was lost mid-restart     | discarded and run again            | ends after M tries of one restart |

export const RESTART_POLICY = {
  /** Restarts whose mysqld failed to start, one after another, before the run gives up. */
  startFailuresInARow: 3,
  /** Tries of one restart that a lost connection interrupted, before the run gives up. */
  triesPerRestart: 3,
} as const;

/** Why a run ended after `n` starts in a row failed (`last`: the last one's cause). */
export function startFailuresMessage(n: number, last: string): string {
  return `mysqld failed to start for ${n} restarts in a row; the last: ${last}`;
}

/** Why a run ended after one restart was interrupted `tries` times. */
export function interruptedMessage(seq: number, cell: string, tries: number, last: string): string {
  return `restart ${seq} (${cell}) was interrupted ${tries} times; last: ${last}`;
}
