// `transform`: `{"operation", "input" (template), "save_to_variable"}`; renders the input, applies
// the operation of src/workflow/transform.ts (extract_digits, …) and saves the result.
import type { NodeDefinition } from '../node-types.js';
import { applyTransform } from '../workflow-deps.js';
import { optString, reqString } from './config.js';

export const transformNode: NodeDefinition = {
  type: 'transform',
  instant: true,
  run: async (ctx, config) => {
    const operation = reqString(config, 'operation');
    const input = ctx.render(optString(config, 'input') ?? '');
    const saveTo = reqString(config, 'save_to_variable');
    return { handle: 'default', outputs: { [saveTo]: applyTransform(operation, input) } };
  },
};
