import { describe, expect, it } from 'vitest';
import { buildGrammar, phraseWords } from './grammar.js';

const everyWord = (): boolean => true;

describe('the per-turn grammar', () => {
  it('splits handles and sentences into dictionary words', () => {
    expect(phraseWords('talk_to_sales')).toEqual(['talk', 'to', 'sales']);
    expect(phraseWords('talkToSales')).toEqual(['talk', 'to', 'sales']);
    expect(phraseWords("Billing, please! (it's urgent)")).toEqual(['billing', 'please', "it's", 'urgent']);
  });

  it('listens for the expected phrases, yes and no, with polite words around them', () => {
    const g = buildGrammar({ phrases: ['billing', 'talk_to_sales'] }, everyWord);
    expect(g).toContain('public <turn> = [<lead>] (billing | talk to sales | yes | no) [<tail>];');
    expect(g).toMatch(/<lead> = i want \| i want to \|/);
    expect(g).toContain('<tail> = please | thanks | thank you;');
    expect(g).not.toMatch(/public <turn> = \(.*\)\+/);
  });

  it('adds a digit loop, and no lead-in words, when a number is expected', () => {
    const g = buildGrammar({ digits: true }, everyWord);
    expect(g).toContain('public <turn> = yes | no | <digits>;');
    expect(g).toContain('<digits> = (zero | one | two | three | four | five | six | seven | eight | nine)+;');
  });

  it('leaves out words the dictionary lacks, and phrases left with none', () => {
    const known = (w: string): boolean => w !== 'zorblax';
    const g = buildGrammar({ phrases: ['zorblax', 'zorblax billing'] }, known);
    expect(g).toContain('(billing | yes | no)');
    expect(g).not.toContain('zorblax');
  });

  it('falls back to an open loop of everyday words when nothing in particular is expected', () => {
    for (const hints of [undefined, {}, { phrases: [] }]) {
      const g = buildGrammar(hints, everyWord);
      expect(g).toMatch(/^public <turn> = \(a \| about \| account .* nine\)\+;$/m);
      expect(g).not.toContain('<lead>');
    }
  });

  it('is a grammar the decoder parses: one public rule, every referenced rule defined', () => {
    const g = buildGrammar({ phrases: ['yes'], digits: true }, everyWord);
    expect(g.startsWith('#JSGF V1.0;\ngrammar turn;\n')).toBe(true);
    expect(g.match(/^public /gm)).toHaveLength(1);
    const defined = new Set([...g.matchAll(/^(?:public )?<(\w+)> =/gm)].map((m) => m[1]));
    for (const [, ref] of g.matchAll(/= .*?<(\w+)>/g)) expect(defined.has(ref)).toBe(true);
  });
});
