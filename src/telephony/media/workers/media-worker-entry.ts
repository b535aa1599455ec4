// The script a media worker thread runs (see media-worker-pool.ts).
import './wasm-opus.js';
import { parentPort } from 'node:worker_threads';
import { runMediaWorker } from './media-worker.js';

if (parentPort) runMediaWorker(parentPort);
