// Runs one execution of a frozen workflow graph: from `start`, node by node, following the edge
// that leaves by the handle each node returns (an edge without source_handle leaves by `default`).
//
// Execution statuses:
//   running      between start and one of the final states below
//   completed    an `end` or `hangup` node was reached            → execution.completed
//   transferred  a transfer node handed the caller over           → execution.transferred
//   failed       unhandled node error, no edge for a handle, unmet channel need, step limit or
//                maximum duration exceeded                         → execution.failed
//   cancelled    the session ended under it (DELETE, client gone)  → execution.cancelled
//
// Every node run gets its own AbortSignal; cancel() and the maximum duration abort it, which is
// how barge-in-free interruptions (hangup, force end) reach a node waiting on the channel.
import type { Channel } from '../channels/channel.js';
import type { LlmProvider } from '../providers/llm/llm.types.js';
import { isoSeconds, type Clock, type TimerHandle } from '../shared/clock.js';
import { inSpan } from '../shared/tracing.js';
import { EventStream, type ExecutionError, type ExecutionStatus } from './events.js';
import { buildEdgeIndex, findStartNode, type EdgeIndex } from './graph-walk.js';
import { createNodeContext, type MutableNodeContext } from './node-context.js';
import { expectedWords } from './speech-hints.js';
import {
  NodeError,
  type AgentRecord,
  type FetchLike,
  type NodeContext,
  type NodeDefinition,
  type NodeOutcome,
} from './node-types.js';
import { defaultRegistry, type NodeRegistry } from './nodes/index.js';
import { seedVariables, VariableStore, type VariableSeeds } from './variables.js';
import { redactVariables, type GraphNode, type WorkflowGraph } from './workflow-deps.js';

/** Config.maxExecutionSeconds' default (MAX_EXECUTION_SECONDS), in ms. */
export const DEFAULT_MAX_EXECUTION_MS = 3_600_000;
/** Node steps per execution before it fails with step_limit_exceeded (guards cycling graphs). */
export const DEFAULT_MAX_STEPS = 10_000;

export interface ExecutionOptions {
  graph: WorkflowGraph;
  channel: Channel;
  clock: Clock;
  events?: EventStream;
  seeds?: VariableSeeds;
  /** LLM providers by id (llm_vendor_1 … or the scripted provider's id). */
  llm?: Record<string, LlmProvider> | ((id: string) => LlmProvider | undefined);
  getAgent?: (id: string) => Promise<AgentRecord | undefined>;
  fetch?: FetchLike;
  maxExecutionMs?: number;
  maxSteps?: number;
  registry?: NodeRegistry;
  executionId?: string;
  workflowId?: string;
  workflowVersion?: number;
}

export type FinalStatus = Exclude<ExecutionStatus, 'running'>;

export interface ExecutionResult {
  /** The execution id given in the options ('' when none was). */
  executionId: string;
  status: FinalStatus;
  /** Node ids in the order they ran. */
  path: string[];
  /** Final variables, secrets redacted. */
  variables: Record<string, unknown>;
  lastNodeId: string | null;
  error?: ExecutionError;
  transfer?: { destination: string; mode: 'blind' | 'warm' };
  cancelReason?: string;
  durationMs: number;
}

/** The signal of instant nodes (see NodeDefinition.instant): nothing ever aborts it. */
const NEVER_ABORTED: AbortSignal = new AbortController().signal;

type Stop = { kind: 'cancel'; reason: string } | { kind: 'timeout' };

class StopSignal extends Error {}

export class Execution {
  readonly events: EventStream;
  readonly variables: VariableStore;
  readonly path: string[] = [];
  private statusValue: ExecutionStatus = 'running';
  private stop: Stop | null = null;
  private current: AbortController | null = null;
  private currentNode: GraphNode | null = null;
  private promise: Promise<ExecutionResult> | null = null;
  private readonly options: ExecutionOptions;

  constructor(options: ExecutionOptions) {
    this.options = options;
    this.events = options.events ?? new EventStream(() => options.clock.now());
    const seeded = seedVariables({
      ...options.seeds,
      system: {
        execution_id: options.executionId,
        started_at: isoSeconds(options.clock.now()),
        ...options.seeds?.system,
      },
    });
    this.variables = new VariableStore(
      seeded,
      (e) => this.events.emit(e),
      () => this.currentNode?.id,
    );
  }

  get status(): ExecutionStatus {
    return this.statusValue;
  }

  get currentNodeId(): string | null {
    return this.currentNode?.id ?? null;
  }

  /** Starts the run (once) and resolves with the final result; never rejects. */
  run(): Promise<ExecutionResult> {
    this.promise ??= inSpan(
      'workflow.execution',
      {
        'switchboard.execution_id': this.options.executionId ?? '',
        'switchboard.workflow_id': this.options.workflowId ?? '',
        'switchboard.workflow_version': this.options.workflowVersion ?? 0,
        'switchboard.channel': this.options.channel.kind,
      },
      () => this.loop(),
    );
    return this.promise;
  }

  /** Ends the execution as `cancelled`, aborting the node that is running. Idempotent. */
  cancel(reason: string): void {
    if (this.statusValue !== 'running' || this.stop) return;
    this.stop = { kind: 'cancel', reason };
    this.current?.abort(new StopSignal(reason));
  }

  private timeout(): void {
    if (this.statusValue !== 'running' || this.stop) return;
    this.stop = { kind: 'timeout' };
    this.current?.abort(new StopSignal('max_duration_exceeded'));
  }

  /** One node's run, with the abort controller a cancel or a timeout reaches it through. */
  private async runNode(def: NodeDefinition, ctx: NodeContext, node: GraphNode): Promise<NodeOutcome> {
    if (def.instant) return def.run(ctx, node.config ?? {}, NEVER_ABORTED);
    const controller = new AbortController();
    this.current = controller;
    try {
      return await def.run(ctx, node.config ?? {}, controller.signal);
    } finally {
      this.current = null;
    }
  }

  private async loop(): Promise<ExecutionResult> {
    const { clock, graph } = this.options;
    const maxMs = this.options.maxExecutionMs ?? DEFAULT_MAX_EXECUTION_MS;
    const maxSteps = this.options.maxSteps ?? DEFAULT_MAX_STEPS;
    const startedAt = clock.monotonic();
    const timer: TimerHandle = clock.setTimeout(() => this.timeout(), maxMs);
    this.events.emit({
      type: 'execution.started',
      execution_id: this.options.executionId ?? '',
      ...(this.options.workflowId !== undefined ? { workflow_id: this.options.workflowId } : {}),
      ...(this.options.workflowVersion !== undefined
        ? { workflow_version: this.options.workflowVersion }
        : {}),
    });
    const ctx = this.nodeContext();
    const edges = buildEdgeIndex(graph);
    let node: GraphNode | undefined = findStartNode(graph);
    let steps = 0;
    try {
      if (!node) throw new NodeError('no_start_node', 'The graph has no start node.');
      for (;;) {
        if (this.stop) throw new StopSignal();
        if (++steps > maxSteps) {
          throw new NodeError('step_limit_exceeded', `More than ${maxSteps} node steps.`);
        }
        if (clock.monotonic() - startedAt >= maxMs) this.timeout();
        if (this.stop) throw new StopSignal();
        const outcome = await this.step(node, ctx, edges);
        if (outcome.finish) return this.finish(outcome, startedAt);
        const next: GraphNode | undefined = edges.get(node.id)?.get(outcome.handle);
        if (!next) {
          throw new NodeError(
            'no_edge',
            `Node "${node.id}" left by handle "${outcome.handle}" but no edge leaves by it.`,
          );
        }
        node = next;
      }
    } catch (err) {
      return this.fail(err, startedAt);
    } finally {
      clock.clearTimeout(timer);
    }
  }

  /** The context every node of this run gets (its node id is set as each one is entered). */
  private nodeContext(): MutableNodeContext {
    const { clock, graph, channel } = this.options;
    return createNodeContext({
      clock,
      channel,
      events: this.events,
      variables: this.variables,
      llm: this.options.llm,
      getAgent: this.options.getAgent,
      fetch: this.options.fetch,
      speechHints: (nodeId) => expectedWords(graph, nodeId),
    });
  }

  /**
   * One node: entered, run (or left by its `unsupported` handle when the channel lacks what it
   * needs and that handle has an edge), its outputs saved, exited. Returns how it left.
   */
  private async step(node: GraphNode, ctx: MutableNodeContext, edges: EdgeIndex): Promise<NodeOutcome> {
    const { channel } = this.options;
    const registry = this.options.registry ?? defaultRegistry;
    this.currentNode = node;
    this.path.push(node.id);
    const def = registry.get(node.type);
    if (!def) throw new NodeError('unknown_node_type', `Unknown node type "${node.type}".`);
    const missing = def.needs?.find((need) => !channel.capabilities[need]);
    if (missing && !(def.unsupported && edges.get(node.id)?.has(def.unsupported.handle))) {
      throw new NodeError(
        'channel_unsupported',
        `Node type "${node.type}" needs ${missing}, which the ${channel.kind} channel lacks.`,
      );
    }
    ctx.nodeId = node.id;
    this.events.emit({ type: 'node.entered', node_id: node.id, node_type: node.type });
    const outcome = missing
      ? def.unsupported!
      : await inSpan(
          `node ${node.type}`,
          { 'switchboard.node_id': node.id, 'switchboard.node_type': node.type },
          () => this.runNode(def, ctx, node),
        );
    if (this.stop) throw new StopSignal();
    if (outcome.outputs) this.variables.setMany(outcome.outputs);
    this.events.emit({
      type: 'node.exited',
      node_id: node.id,
      node_type: node.type,
      handle: outcome.handle,
    });
    return outcome;
  }

  private finish(outcome: NodeOutcome, startedAt: number): ExecutionResult {
    const finish = outcome.finish!;
    const base = this.result(finish.status, startedAt);
    if (finish.status === 'transferred') {
      base.transfer = { destination: finish.destination, mode: finish.mode };
      this.events.emit({
        type: 'execution.transferred',
        status: 'transferred',
        last_node_id: base.lastNodeId!,
        destination: finish.destination,
        mode: finish.mode,
        variables: base.variables,
        duration_ms: base.durationMs,
      });
    } else {
      this.events.emit({
        type: 'execution.completed',
        status: 'completed',
        last_node_id: base.lastNodeId!,
        variables: base.variables,
        duration_ms: base.durationMs,
      });
    }
    return base;
  }

  private fail(err: unknown, startedAt: number): ExecutionResult {
    const stop = this.stop;
    if (stop?.kind === 'cancel') {
      const result = this.result('cancelled', startedAt);
      result.cancelReason = stop.reason;
      this.events.emit({
        type: 'execution.cancelled',
        status: 'cancelled',
        last_node_id: result.lastNodeId,
        reason: stop.reason,
        variables: result.variables,
        duration_ms: result.durationMs,
      });
      return result;
    }
    const error: ExecutionError =
      stop?.kind === 'timeout'
        ? { code: 'max_duration_exceeded', message: 'The execution ran past its maximum duration.' }
        : err instanceof NodeError
          ? { code: err.code, message: err.message }
          : { code: 'node_error', message: err instanceof Error ? err.message : String(err) };
    const result = this.result('failed', startedAt);
    result.error = error;
    this.events.emit({
      type: 'execution.failed',
      status: 'failed',
      last_node_id: result.lastNodeId,
      error,
      variables: result.variables,
      duration_ms: result.durationMs,
    });
    return result;
  }

  private result(status: FinalStatus, startedAt: number): ExecutionResult {
    this.statusValue = status;
    return {
      executionId: this.options.executionId ?? '',
      status,
      path: this.path,
      variables: redactVariables(this.variables.values),
      lastNodeId: this.currentNode?.id ?? null,
      durationMs: this.options.clock.monotonic() - startedAt,
    };
  }
}

/** Runs a graph to its end; the convenience form of `new Execution(options).run()`. */
export function runWorkflow(options: ExecutionOptions): Promise<ExecutionResult> {
  return new Execution(options).run();
}
