// A FetchLike over Node's global fetch, unguarded, for tests whose webhook nodes call a local
// server. The service never uses it: its session host fetches through the wiring's SSRF-guarded
// agent, so webhook nodes and agent tools cannot reach internal hosts.
import type { FetchLike } from '../node-types.js';

export const globalFetch: FetchLike = (url, init) => fetch(url, init);
