// One line per engine event, the form golden flows (test/fixtures/workflows/*.json) are written in.
import type { EngineEvent } from '../events.js';

export function describeEvent(e: EngineEvent): string {
  switch (e.type) {
    case 'execution.started':
      return 'execution.started';
    case 'node.entered':
      return `entered ${e.node_id}`;
    case 'node.exited':
      return `exited ${e.node_id} ${e.handle}`;
    case 'message': {
      const who = e.agent_name ? `${e.role}(${e.agent_name})` : e.role;
      const latency = e.latency_ms !== undefined ? ` [${Math.round(e.latency_ms)}ms]` : '';
      return `${who}: ${e.content}${latency}`;
    }
    case 'message.interrupted':
      return 'interrupted';
    case 'variables.changed':
      return `set ${Object.entries(e.changes)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(' ')}`;
    case 'usage':
      return `usage ${e.provider} ${e.llm_input_tokens}/${e.llm_output_tokens}`;
    case 'dtmf':
      return `dtmf ${e.digits}`;
    case 'dial.dtmf':
      return `dialled party pressed ${e.digits}`;
    case 'execution.completed':
      return `completed at ${e.last_node_id}`;
    case 'execution.transferred':
      return `transferred ${e.mode} ${e.destination}`;
    case 'execution.failed':
      return `failed ${e.error.code} at ${e.last_node_id}`;
    case 'execution.cancelled':
      return `cancelled ${e.reason} at ${e.last_node_id}`;
    case 'session.status':
      return `session ${e.status}`;
    case 'session.ended':
      return `session.ended ${e.end_reason} ${e.duration_seconds}s`;
  }
}
