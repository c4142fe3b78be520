// The fixed content of the TPC-H specification (Clause 4.2): dates, the word lists and their weights
// for the pseudo-text grammar (4.2.2.13), the lists fields are picked from (4.2.2.13, 4.2.3), the
// nations and regions (4.2.3). Data only: the generator reads it.
import type { Rng } from './rng.js';

/** STARTDATE, CURRENTDATE and ENDDATE (4.2.2.12) as days from 1992-01-01. */
export const START_DATE = '1992-01-01';
export const CURRENT_DAY = 1263; // 1995-06-17
export const END_DAY = 2556; // 1998-12-31
/** Orders are dated up to ENDDATE - 151 days, so that every lineitem ships, commits and arrives by ENDDATE. */
export const LAST_ORDER_DAY = END_DAY - 151;

/** A list whose items are picked with the given relative weights. */
export class Weighted {
  readonly items: string[];
  private readonly cumulative: number[];
  private readonly total: number;

  constructor(pairs: [string, number][]) {
    this.items = pairs.map((p) => p[0]);
    let sum = 0;
    this.cumulative = pairs.map((p) => (sum += p[1]));
    this.total = sum;
  }

  pick(rng: Rng): string {
    const x = rng.next() * this.total;
    const c = this.cumulative;
    let i = 0;
    while (c[i] <= x) i++;
    return this.items[i];
  }
}

const uniform = (items: string[]) => new Weighted(items.map((s) => [s, 1]));
const w = (spec: string) =>
  new Weighted(
    spec.split(',').map((pair) => {
      const [word, n] = pair.split(':');
      return [word, Number(n)];
    }),
  );

export const NOUNS = w(
  'packages:40,requests:40,accounts:40,deposits:40,foxes:20,ideas:20,theodolites:20,pinto beans:20,instructions:20,dependencies:10,excuses:10,platelets:10,asymptotes:10,courts:5,dolphins:5,multipliers:1,sauternes:1,warthogs:1,frets:1,dinos:1,attainments:1,somas:1,Tiresias:1,patterns:1,forges:1,braids:1,frays:1,warhorses:1,dugouts:1,notornis:1,epitaphs:1,pearls:1,tithes:1,waters:1,orbits:1,gifts:1,sheaves:1,depths:1,sentiments:1,decoys:1,realms:1,pains:1,grouches:1,escapades:1,hockey players:1',
);
export const VERBS = w(
  'sleep:20,wake:20,are:20,cajole:20,haggle:20,nag:10,use:10,boost:10,affix:5,detect:5,integrate:5,maintain:1,nod:1,was:1,lose:1,sublate:1,solve:1,thrash:1,promise:1,engage:1,hinder:1,print:1,x-ray:1,breach:1,eat:1,grow:1,impress:1,mold:1,poach:1,serve:1,run:1,dazzle:1,snooze:1,doze:1,unwind:1,kindle:1,play:1,hang:1,believe:1,doubt:1',
);
export const ADJECTIVES = w(
  'special:20,pending:20,unusual:20,express:20,furious:1,sly:1,careful:1,blithe:1,quick:1,fluffy:1,slow:1,quiet:1,ruthless:1,thin:1,close:1,dogged:1,daring:1,brave:1,stealthy:1,permanent:1,enticing:1,idle:1,busy:1,regular:50,final:40,ironic:40,even:30,bold:20,silent:10',
);
export const ADVERBS = w(
  'sometimes:1,always:1,never:1,furiously:50,slyly:50,carefully:50,blithely:40,quickly:30,fluffily:20,slowly:1,quietly:1,ruthlessly:1,thinly:1,closely:1,doggedly:1,daringly:1,bravely:1,stealthily:1,permanently:1,enticingly:1,idly:1,busily:1,regularly:1,finally:1,ironically:1,evenly:1,boldly:1,silently:1',
);
export const PREPOSITIONS = w(
  'about:50,above:50,according to:50,across:50,after:50,against:40,along:40,alongside of:30,among:30,around:20,at:10,atop:1,before:1,behind:1,beneath:1,beside:1,besides:1,between:1,beyond:1,by:1,despite:1,during:1,except:1,for:1,from:1,in place of:1,inside:1,instead of:1,into:1,near:1,of:1,on:1,outside:1,over:1,past:1,since:1,through:1,throughout:1,to:1,toward:1,under:1,until:1,up:1,upon:1,without:1,with:1,within:1',
);
export const AUXILIARIES = uniform(['do', 'may', 'might', 'shall', 'will', 'would', 'can', 'could', 'should', 'ought to', 'must', 'will have to', 'shall have to', 'could have to', 'should have to', 'must have to', 'need to', 'try to']);
export const TERMINATORS = new Weighted([['.', 50], [';', 1], [':', 1], ['?', 1], ['!', 1], ['--', 1]]);
/** Sentences (N noun phrase, V verb phrase, P prepositional phrase, T terminator), noun and verb phrases. */
export const SENTENCES = w('N V T:3,N V P T:3,N V N T:3,N P V N T:1,N P V P T:1');
export const NOUN_PHRASES = new Weighted([['N', 10], ['J N', 20], ['J, J N', 10], ['D J N', 50]]);
export const VERB_PHRASES = w('V:30,X V:1,V D:40,X V D:1');

export const COLORS = 'almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki lace lavender lawn lemon light lime linen magenta maroon medium metallic midnight mint misty moccasin navajo navy olive orange orchid pale papaya peach peru pink plum powder puff purple red rose rosy royal saddle salmon sandy seashell sienna sky slate smoke snow spring steel tan thistle tomato turquoise violet wheat white yellow'.split(' ');

const product = (...lists: string[][]) => lists.reduce((acc, l) => acc.flatMap((a) => l.map((b) => (a ? `${a} ${b}` : b))), ['']);
export const TYPES = product(['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'], ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'], ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER']);
export const CONTAINERS = product(['SM', 'LG', 'MED', 'JUMBO', 'WRAP'], ['CASE', 'BOX', 'BAG', 'JAR', 'PACK', 'PKG', 'CAN', 'DRUM']);
export const SEGMENTS = ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'];
export const PRIORITIES = ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'];
export const INSTRUCTIONS = ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'];
export const MODES = ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'];

/** N_NAME and N_REGIONKEY; N_NATIONKEY is the position. */
export const NATIONS: [string, number][] = [
  ['ALGERIA', 0], ['ARGENTINA', 1], ['BRAZIL', 1], ['CANADA', 1], ['EGYPT', 4], ['ETHIOPIA', 0], ['FRANCE', 3], ['GERMANY', 3], ['INDIA', 2], ['INDONESIA', 2],
  ['IRAN', 4], ['IRAQ', 4], ['JAPAN', 2], ['JORDAN', 4], ['KENYA', 0], ['MOROCCO', 0], ['MOZAMBIQUE', 0], ['PERU', 1], ['CHINA', 2], ['ROMANIA', 3],
  ['SAUDI ARABIA', 4], ['VIETNAM', 2], ['RUSSIA', 3], ['UNITED KINGDOM', 3], ['UNITED STATES', 1],
];
export const REGIONS = ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'];

/** The characters of a v-string (4.2.2.7: "at least 64 symbols"); none of them is `|`, a tab, a newline or `\`. */
export const VSTRING_CHARS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.';
