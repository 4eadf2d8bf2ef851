#!/usr/bin/env -S node --no-node-snapshot
// The `junction` command. --no-node-snapshot is required by isolated-vm on Node 20+.
import '../dist/core/cli/main.js';
