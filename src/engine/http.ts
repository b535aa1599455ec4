// The default FetchLike: Node's global fetch. The API wiring should pass a guarded fetch instead
// (undici with the connect-time private-address check of DESIGN.md) so webhook nodes and agent
// tools cannot reach internal hosts.
import type { FetchLike } from './node-types.js';

export const globalFetch: FetchLike = (url, init) => fetch(url, init);
