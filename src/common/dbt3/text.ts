// Pseudo text (TPC-H 4.2.2.10 and 4.2.2.14): comments are substrings, at a random offset and of a
// random length, of one long text made from the specification's grammar and weighted word lists.
// The specification's pool is 300 MB; this one is smaller (TEXT_POOL_MAX at most) so the generator
// stays within its memory budget at every SF. Words, phrases and their frequencies are the same,
// which is what the queries that search comments (Q13, Q16) depend on.
import { Rng, streamSeed } from './rng.js';
import { ADJECTIVES, ADVERBS, AUXILIARIES, NOUN_PHRASES, NOUNS, PREPOSITIONS, SENTENCES, TERMINATORS, VERB_PHRASES, VERBS } from './spec.js';

export const TEXT_POOL_MIN = 4 << 20;
export const TEXT_POOL_MAX = 48 << 20;

/** The pool's size at a scale factor: larger for larger data, so that comments repeat less. */
export function textPoolSize(sf: number): number {
  return Math.max(TEXT_POOL_MIN, Math.min(TEXT_POOL_MAX, Math.round(sf * (32 << 20))));
}

function nounPhrase(rng: Rng): string {
  switch (NOUN_PHRASES.pick(rng)) {
    case 'N':
      return NOUNS.pick(rng);
    case 'J N':
      return `${ADJECTIVES.pick(rng)} ${NOUNS.pick(rng)}`;
    case 'J, J N':
      return `${ADJECTIVES.pick(rng)}, ${ADJECTIVES.pick(rng)} ${NOUNS.pick(rng)}`;
    default:
      return `${ADVERBS.pick(rng)} ${ADJECTIVES.pick(rng)} ${NOUNS.pick(rng)}`;
  }
}

function verbPhrase(rng: Rng): string {
  switch (VERB_PHRASES.pick(rng)) {
    case 'V':
      return VERBS.pick(rng);
    case 'X V':
      return `${AUXILIARIES.pick(rng)} ${VERBS.pick(rng)}`;
    case 'V D':
      return `${VERBS.pick(rng)} ${ADVERBS.pick(rng)}`;
    default:
      return `${AUXILIARIES.pick(rng)} ${VERBS.pick(rng)} ${ADVERBS.pick(rng)}`;
  }
}

const prepositionalPhrase = (rng: Rng) => `${PREPOSITIONS.pick(rng)} the ${nounPhrase(rng)}`;

/** One sentence of the grammar, its terminator attached to the last word. */
export function sentence(rng: Rng): string {
  const parts: string[] = [];
  for (const sym of SENTENCES.pick(rng).split(' ')) {
    if (sym === 'N') parts.push(nounPhrase(rng));
    else if (sym === 'V') parts.push(verbPhrase(rng));
    else if (sym === 'P') parts.push(prepositionalPhrase(rng));
    else parts[parts.length - 1] += TERMINATORS.pick(rng);
  }
  return parts.join(' ');
}

const pools = new Map<string, string>();

/** The text pool for a seed and size (made once per process and kept: at most a few tens of MB). */
export function textPool(seed: number, size: number): string {
  const key = `${seed}:${size}`;
  let pool = pools.get(key);
  if (pool === undefined) {
    const rng = new Rng(streamSeed(seed, 99, 0));
    const chunks: string[] = [];
    let n = 0;
    // Sentences are joined into blocks first: one array of millions of short strings would cost more memory than the text.
    let block: string[] = [];
    let blockLen = 0;
    while (n < size) {
      const s = sentence(rng);
      block.push(s);
      blockLen += s.length + 1;
      n += s.length + 1;
      if (blockLen > 65536) {
        chunks.push(block.join(' ') + ' ');
        block = [];
        blockLen = 0;
      }
    }
    chunks.push(block.join(' ') + ' ');
    pool = chunks.join('').slice(0, size);
    pools.clear(); // one pool at a time: a process making two data sets in turn does not keep both
    pools.set(key, pool);
  }
  return pool;
}

/** text string[min, max]: a substring of the pool of a random length in [min, max] at a random offset. */
export function text(rng: Rng, pool: string, min: number, max: number): string {
  const len = rng.int(min, max);
  const off = rng.int(0, pool.length - len);
  return pool.substring(off, off + len);
}
