// `start`: where every execution begins. Does nothing but leave by `default`.
import type { NodeDefinition } from '../node-types.js';

export const startNode: NodeDefinition = {
  type: 'start',
  instant: true,
  run: async () => ({ handle: 'default' }),
};
