/**
 * The demo data set's randomness and words: a seeded PRNG (so `hearth seed --seed N` gives the same data every
 * time) and a small built-in English vocabulary (no dependency, nothing fetched).
 */

export type Random = () => number;

/** mulberry32: a tiny, fast 32-bit PRNG with good enough spread for demo data. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Helpers over one PRNG: every choice of the generator goes through them, in a fixed order. */
export function dice(random: Random) {
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  return {
    random,
    int,
    pick,
    chance: (p: number) => random() < p,
    /** `count` distinct items of `list` (all of them when it is shorter). */
    sample<T>(list: readonly T[], count: number): T[] {
      const copy = [...list];
      const out: T[] = [];
      while (out.length < count && copy.length > 0) out.push(copy.splice(Math.floor(random() * copy.length), 1)[0] as T);
      return out;
    },
    alphanumeric(length: number) {
      let s = '';
      for (let i = 0; i < length; i++) s += ALPHANUMERIC[Math.floor(random() * ALPHANUMERIC.length)];
      return s;
    },
    lowerTag(length: number) {
      let s = '';
      for (let i = 0; i < length; i++) s += 'abcdefghijkmnpqrstuvwxyz23456789'[Math.floor(random() * 32)];
      return s;
    },
  };
}
export type Dice = ReturnType<typeof dice>;

export const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Amara',
  'Ben',
  'Carla',
  'Chen',
  'Dana',
  'Diego',
  'Elena',
  'Emeka',
  'Farah',
  'Felix',
  'Grace',
  'Hana',
  'Hugo',
  'Ines',
  'Ivan',
  'Jonas',
  'Julia',
  'Kai',
  'Keiko',
  'Lars',
  'Leila',
  'Liam',
  'Maya',
  'Marco',
  'Nadia',
  'Noah',
  'Olga',
  'Omar',
  'Priya',
  'Quinn',
  'Rafael',
  'Rosa',
  'Sam',
  'Sofia',
  'Tariq',
  'Tess',
  'Uma',
  'Victor',
  'Wen',
  'Yara',
  'Yusuf',
  'Zoe',
] as const;

export const LAST_NAMES = [
  'Adeyemi',
  'Bauer',
  'Castillo',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Haddad',
  'Ito',
  'Jensen',
  'Kowalski',
  'Larsen',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quintero',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Underwood',
  'Varga',
  'Walsh',
  'Xu',
  'Yilmaz',
  'Zhang',
  'Novak',
  'Silva',
  'Khan',
  'Murphy',
] as const;

/** Company names and their industry (organizations). */
export const COMPANIES: ReadonlyArray<readonly [string, string]> = [
  ['Northwind Traders', 'retail'],
  ['Bluefin Labs', 'biotech'],
  ['Copperleaf Studio', 'design'],
  ['Harbor & Finch', 'legal'],
  ['Juniper Analytics', 'data'],
  ['Keystone Robotics', 'manufacturing'],
  ['Lumen Health', 'healthcare'],
  ['Maple Street Bank', 'finance'],
  ['Nimbus Cloud', 'software'],
  ['Orchard Foods', 'food'],
  ['Pinecrest Schools', 'education'],
  ['Quarry Games', 'games'],
  ['Riverbend Energy', 'energy'],
  ['Saltmarsh Media', 'media'],
  ['Tidewater Logistics', 'logistics'],
  ['Umbra Security', 'security'],
  ['Vantage Travel', 'travel'],
  ['Willow Architects', 'architecture'],
  ['Yellowstone Outfitters', 'retail'],
  ['Zephyr Aerospace', 'aerospace'],
];

export const TOP_FOLDERS = ['Engineering', 'Product', 'Design', 'Marketing', 'Sales', 'Operations', 'Legal', 'Research', 'People', 'Finance'] as const;
export const SUB_FOLDERS = [
  'Specs',
  'Roadmap',
  'Meeting notes',
  'Drafts',
  'Reviews',
  'Templates',
  'Archive',
  'Q1 planning',
  'Q2 planning',
  'Launches',
  'Research notes',
  'Retrospectives',
] as const;

const DOC_SUBJECTS = [
  'Launch plan',
  'API design review',
  'Onboarding checklist',
  'Pricing proposal',
  'Incident postmortem',
  'Quarterly goals',
  'Customer interview notes',
  'Brand guidelines',
  'Security review',
  'Hiring plan',
  'Release notes',
  'Architecture overview',
  'Budget forecast',
  'Competitive analysis',
  'Design critique',
  'Sprint retrospective',
  'Migration runbook',
  'Partner agreement',
  'Support playbook',
  'Research summary',
  'Roadmap draft',
  'Accessibility audit',
  'Data retention policy',
  'Vendor comparison',
  'Team offsite agenda',
] as const;
const DOC_QUALIFIERS = ['', '', '', ' v2', ' (draft)', ' — final', ' for Q3', ' 2026', ' summary', ' notes'] as const;

const SUBJECTS = [
  'The team',
  'Our customers',
  'The new release',
  'This proposal',
  'The design',
  'Finance',
  'The pilot group',
  'Support',
  'The vendor',
  'Marketing',
] as const;
const VERBS = ['needs', 'supports', 'improves', 'reduces', 'depends on', 'replaces', 'clarifies', 'speeds up', 'simplifies', 'changes'] as const;
const OBJECTS = [
  'the onboarding flow',
  'our response times',
  'the billing page',
  'the rollout schedule',
  'the review process',
  'the data model',
  'weekly reporting',
  'the mobile layout',
  'search relevance',
  'the approval steps',
  'the error messages',
  'the migration plan',
  'regional pricing',
  'the test coverage',
] as const;
const CLAUSES = [
  'before the launch',
  'by the end of the quarter',
  'for enterprise accounts',
  'without extra cost',
  'in the next sprint',
  'after the pilot',
  'across all regions',
  'for new users',
] as const;

export const COMMENT_TEXTS = [
  'Can we add a short summary at the top?',
  'This paragraph needs a source.',
  'Looks good to me, ship it.',
  'I think the numbers here are from last quarter.',
  'Could you clarify who owns this step?',
  'Nice work on this section!',
  'We should align this with the roadmap.',
  'Typo in the second sentence.',
  'Let us discuss this in Thursday’s sync.',
  'Agreed, this is much clearer now.',
  'Please double-check the legal wording.',
  'Can we move this to the appendix?',
  'The diagram would help here.',
  'Should this be restricted to the core team?',
  'Updated, please take another look.',
  'Done. Resolving this thread.',
] as const;

export const REACTION_ICONS = ['👍', '🎉', '❤️', '👀', '✅', '🚀'] as const;

export const STATUSES = [
  { id: 'OPEN', name: 'Open', type: 'default' },
  { id: 'IN_PROGRESS', name: 'In progress', type: 'ongoing' },
  { id: 'RESOLVED', name: 'Resolved', type: 'terminal' },
] as const;

export const CHECKLIST_ITEMS = [
  'Write the brief',
  'Review with legal',
  'Update the screenshots',
  'Send to the pilot group',
  'Collect feedback',
  'Publish the changelog',
  'Train the support team',
  'Schedule the launch call',
] as const;

export function documentTitle(d: Dice): string {
  return `${d.pick(DOC_SUBJECTS)}${d.pick(DOC_QUALIFIERS)}`;
}

export function sentence(d: Dice): string {
  return `${d.pick(SUBJECTS)} ${d.pick(VERBS)} ${d.pick(OBJECTS)} ${d.pick(CLAUSES)}.`;
}

export function paragraph(d: Dice, sentences = d.int(2, 4)): string {
  return Array.from({ length: sentences }, () => sentence(d)).join(' ');
}

export const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
