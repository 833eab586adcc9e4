// Imports the test files it is given, in order, in this one process: node:test runs their tests
// as they register (scripts/run-tests.mjs uses it for the unit tests beside their files in src/).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(resolve(file)).href);
