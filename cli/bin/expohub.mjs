#!/usr/bin/env node
// The `expohub` command of @expohub/cli. Plain Node ESM (20+), no dependencies and no build step.
import process from 'node:process';
import { run } from '../src/main.mjs';

await run(process.argv.slice(2));
