// Imported first by the worker's entry: Opus's native addon crashes the process when a worker
// thread that loaded it exits, so a media worker takes the same library's WebAssembly build.
process.env.OPUS_FORCE_WASM = '1';
