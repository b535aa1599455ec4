// `set_variables`: `{"variables": {"name": "template"}}` renders each template against the
// variables as they were when the node started (so the order of keys does not matter), then sets
// them all at once.
import type { NodeDefinition } from '../node-types.js';
import { optRecord } from './config.js';

export const setVariablesNode: NodeDefinition = {
  type: 'set_variables',
  instant: true,
  run: async (ctx, config) => {
    const templates = optRecord(config, 'variables') ?? {};
    const outputs: Record<string, unknown> = {};
    for (const name in templates) {
      const t = templates[name];
      outputs[name] = typeof t === 'string' ? ctx.render(t) : t;
    }
    return { handle: 'default', outputs };
  },
};
