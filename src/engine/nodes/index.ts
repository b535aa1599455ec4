// The node registry: node type → definition. The interpreter looks nodes up here; tests and the
// benchmark may pass their own registry.
import type { NodeDefinition } from '../node-types.js';
import { agentNode } from './agent.node.js';
import { conditionNode } from './condition.node.js';
import { dialNode } from './dial.node.js';
import { dtmfNode } from './dtmf.node.js';
import { endNode } from './end.node.js';
import { hangupNode } from './hangup.node.js';
import { setVariablesNode } from './set-variables.node.js';
import { speakNode } from './speak.node.js';
import { startNode } from './start.node.js';
import { transferCallNode } from './transfer-call.node.js';
import { transferToHumanNode } from './transfer-to-human.node.js';
import { transformNode } from './transform.node.js';
import { webhookNode } from './webhook.node.js';

export type NodeRegistry = ReadonlyMap<string, NodeDefinition>;

export const defaultRegistry: NodeRegistry = new Map(
  [
    startNode,
    speakNode,
    agentNode,
    dtmfNode,
    conditionNode,
    setVariablesNode,
    transformNode,
    webhookNode,
    dialNode,
    transferToHumanNode,
    transferCallNode,
    endNode,
    hangupNode,
  ].map((n) => [n.type, n]),
);
