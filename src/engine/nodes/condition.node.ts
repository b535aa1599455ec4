// `condition`: `{"branches": [{"handle": "vip", "expression": "tier == 'gold'"}, …]}` leaves by the
// first branch whose expression holds (the safe expression language of src/workflow/expression.ts:
// no eval, no Function), else by `default`. Compiled expressions are cached by source, so a retry
// loop does not parse the same text again.
import { NodeError, type NodeDefinition } from '../node-types.js';
import { compileExpression, isTruthy, type CompiledExpression } from '../workflow-deps.js';
import { optArray } from './config.js';

const cache = new Map<string, CompiledExpression>();
const CACHE_LIMIT = 1000;

function compiled(source: string): CompiledExpression {
  let c = cache.get(source);
  if (!c) {
    c = compileExpression(source);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(source, c);
  }
  return c;
}

export const conditionNode: NodeDefinition = {
  type: 'condition',
  instant: true,
  run: async (ctx, config) => {
    for (const branch of optArray(config, 'branches') ?? []) {
      const b = branch as { handle?: unknown; expression?: unknown };
      if (typeof b.handle !== 'string' || typeof b.expression !== 'string') {
        throw new NodeError('invalid_config', 'Each branch needs a handle and an expression.');
      }
      if (isTruthy(compiled(b.expression).evaluate(ctx.variables.values))) return { handle: b.handle };
    }
    return { handle: 'default' };
  },
};
