// The timer note's parts (issue 22, Deliver 2): the note is one text wherever it is kept (the file's
// results.timerNote, the CSV, the report, the run's log), built by node/workloads/queries.ts as
//   what the timer is and why; how to turn on the exact timer; how it compared with the client's time
// The Run view shows each part on its own line, the options one under another; these starts tell them apart.

/** How the help to turn on performance_schema's exact timer begins (queries.ts EXACT_TIMER_HELP). */
export const EXACT_TIMER_HELP_START = "for performance_schema's exact timer";
/** How the comparison with the client's time begins (queries.ts vsClientText). */
export const VS_CLIENT_START = "compared with the client's round trip";

export interface TimerNoteParts {
  /** Which timer, and why not the exact one. */
  what: string;
  /**
   * How to turn on the exact timer: the sentence, the server options it names, and the words before
   * the first option and after the last (unbracketed), for a view that lists the options on their own.
   */
  help?: { text: string; options: string[]; before: string; after: string };
  /** How the timer compared with the client's time. */
  vsClient?: string;
}

/** A timer note in its parts; a note of another shape is all `what`. */
export function timerNoteParts(note: string): TimerNoteParts {
  const cut = (text: string, start: string) => {
    const i = text.indexOf(`; ${start}`);
    return i < 0 ? [text, undefined] : [text.slice(0, i), text.slice(i + 2)];
  };
  const [rest, vsClient] = cut(note, VS_CLIENT_START);
  const [what, help] = cut(rest!, EXACT_TIMER_HELP_START);
  return {
    what: what!,
    ...(help ? { help: helpParts(help) } : {}),
    ...(vsClient ? { vsClient } : {}),
  };
}

function helpParts(text: string): NonNullable<TimerNoteParts['help']> {
  const options = text.split(/\s+/).filter((w) => /^--[a-z0-9-]+(=\S+)?$/.test(w));
  if (!options.length) return { text, options, before: text, after: '' };
  const last = options[options.length - 1];
  return {
    text,
    options,
    before: text.slice(0, text.indexOf(options[0])).trim(),
    after: text.slice(text.indexOf(last) + last.length).trim().replace(/^\((.*)\)$/, '$1'),
  };
}
