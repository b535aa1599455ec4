// The script a media worker thread runs (see media-worker-pool.ts).
import './wasm-opus.js';
import { parentPort, workerData } from 'node:worker_threads';
import { runMediaWorker } from './media-worker.js';

const data = workerData as { connect?: boolean; nice?: number } | null;
if (parentPort) runMediaWorker(parentPort, data?.connect !== false, data?.nice ?? 0);
