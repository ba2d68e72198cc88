/**
 * ScriptFacts (layers/validator/script-facts.ts): what the whole script binds, as the relaxations
 * need it, found wherever it stands and in every spelling.
 */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../../layers/packages/manifest.ts';
import { getParser } from '../../../layers/parser/tree-sitter.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { compileRules } from '../../../layers/validator/context.ts';
import { manifestPackages } from '../../../layers/validator/package-lists.ts';
import { ScriptFacts, nodeRole } from '../../../layers/validator/script-facts.ts';

const packages = manifestPackages(loadManifest());
const rules = compileRules(loadRules(), packages.declaredPackages, packages.installedPackages);
const parser = await getParser();

function facts(script: string): ScriptFacts {
  return new ScriptFacts(parser.parse(script)!, script, rules);
}

describe('ScriptFacts', () => {
  it.each([
    ['a backquoted operator bound', '`==` <- function(a, b) 1', '`==`'],
    ['a string operator bound', '"%in%" <- function(a, b) 1', '`%in%`'],
    ['an Ops method', 'Ops.money <- function(e1, e2) 1', '`Ops.money`'],
    ['an operator method', '`+.money` <- function(e1, e2) 1', '`+.money`'],
    ['an operator as a list element name', 'l <- list("<" = f)', '`<`'],
  ])('sees the operators redefined by %s', (_, script, name) => {
    expect(facts(script).redefinedOperator()).toBe(`the script defines ${name}`);
  });

  it.each([
    ['an operator used', 'x == 1; Reduce("+", 1:3)'],
    ['a dotted variable that is no method', 'Ops <- 1; x.y <- 2'],
  ])('sees no operator redefined by %s', (_, script) => {
    expect(facts(script).redefinedOperator()).toBeUndefined();
  });

  it.each([
    ['an assignment', 'count <- table(x)', 'count', '`count`'],
    ['a right assignment', 'f -> filter', 'filter', '`filter`'],
    ['a parameter', 'g <- function(desc) 1', 'desc', '`desc`'],
    ['a loop variable', 'for (mean in 1:3) 1', 'mean', '`mean`'],
    ['a .function method', 'mean.function <- function(x, ...) 1', 'mean', '`mean.function`'],
    ['a .default method', 'desc.default <- function(x) 1', 'desc', '`desc.default`'],
    ['an assignment, for a column set', 'c <- 1', 'c select', '`c`'],
  ])('sees the column functions redefined by %s', (_, script, receivers, name) => {
    expect(facts(script).redefinedColumnFunction(receivers.split(' '))).toBe(`the script defines ${name}`);
  });

  it.each([
    ['calls and argument names', 'count(df, x); aes(fill = g); f(filter = 1)', 'count'],
    ['a field', 'x$count <- 1', 'count'],
    ['a dotted variable', 'mean.mpg <- mean(mtcars$mpg)', 'mean'],
    ['a column function that does not receive the name', 'rank <- select(d, x)', 'separate'],
  ])('sees no column function redefined by %s', (_, script, receivers) => {
    expect(facts(script).redefinedColumnFunction(receivers.split(' '))).toBeUndefined();
  });

  it.each([
    ['op <- options(digits = 3)', undefined],
    ['op = base::options(digits = 3); op <- options()', undefined],
    ['options(scipen = 1) -> op', undefined],
    ['op <- list(a = 1)', '`op` is also assigned something other than options(...)'],
    ['op <- options(); op[["digits"]] <- 2', '`op` is modified after it is saved'],
    ['op <- options(); names(op) <- "x"', '`op` is modified after it is saved'],
    ['op <- options(); g <- function(op) 1', '`op` is also a function parameter'],
    ['for (op in 1) 1', '`op` is also a loop variable'],
    ['x <- op', '`op` is not assigned from options(...) in the script'],
  ])('judges the saved options list in %j', (script, problem) => {
    expect(facts(script).savedOptionsProblem('op')).toBe(problem);
  });

  it('answers each question once per script', () => {
    const f = facts('count <- 1');
    expect(f.redefinedColumnFunction(['count'])).toBe(f.redefinedColumnFunction(['count']));
  });

  it('reads roles off a bare node as the walk does off its frames', () => {
    const tree = parser.parse('x <- f(a = y)')!;
    const [lhs, , rhs] = [tree.rootNode.child(0)!.child(0)!, null, tree.rootNode.child(0)!.child(2)!];
    expect(nodeRole(lhs)).toBe('binding');
    expect(nodeRole(rhs.child(0)!)).toBe('call');
    const arg = rhs.childForFieldName('arguments')!.namedChildren[0]!;
    expect(nodeRole(arg.childForFieldName('name')!)).toBe('argument-name');
    expect(nodeRole(arg.childForFieldName('value')!)).toBe('reference');
  });
});
