// `end`: finishes the execution as `completed` (workflow.completed). The line stays up; the session
// decides what happens to it (a phone call ends, a chat shows the end).
import type { NodeDefinition } from '../node-types.js';

export const endNode: NodeDefinition = {
  type: 'end',
  instant: true,
  run: async () => ({ handle: 'default', finish: { status: 'completed' } }),
};
