#!/usr/bin/env node
// The package bin: runs the compiled CLI (`npm install` builds it through `prepare`).
import '../dist/src/cli/main.js';
