// Runs the real xopc 0.0.253 worker (xopcai/xopc src/platform/worker.ts and client.ts, from a checkout given by
// `nox -s live-xopc`, never committed here) against a platform: discovery, then processRuntimeCommand until the
// platform has no work. Ours is only this loop and the handler; every call on the wire is the worker's and the
// client's own code. Started under tsx (the loader xopc's own `dev` script uses): node --import <tsx> this URL.
//
//   node --import tsx xopc_worker_driver.mjs BASE_URL [--source DIR] [--work-ms N] [--max-commands N]
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const baseUrl = args[0];
const source = path.resolve(option('--source', process.env.XOPC_SOURCE ?? '.'));
const workMs = Number(option('--work-ms', '0'));
const maxCommands = Number(option('--max-commands', '10'));
const token = process.env.XOPC_RUNTIME_TOKEN ?? 'xopc_rt_wirecheck_live_worker_0000000000000000';

const client = await import(pathToFileURL(path.join(source, 'src/platform/client.ts')).href);
const worker = await import(pathToFileURL(path.join(source, 'src/platform/worker.ts')).href);

const discovery = await client.discoverPlatform(baseUrl);
const runtime = new client.PlatformRuntimeClient(discovery, token);
const handler = async (command, signal) => {
  if (workMs > 0) await new Promise((resolve) => setTimeout(resolve, workMs));
  return { output: { text: `ran ${command.runId}`, aborted: signal.aborted } };
};
for (let n = 0; n < maxCommands; n += 1) {
  const outcome = await worker.processRuntimeCommand(runtime, handler);
  console.error(`xopc worker: ${outcome}`);
  if (outcome === 'idle') process.exit(0);
}
console.error('xopc worker: the platform never went idle');
process.exit(1);
