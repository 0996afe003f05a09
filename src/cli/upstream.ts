import { startUpstream } from '../passthrough/upstream.js';
import { cannotTest, listenFailure, out, untilStopped } from './output.js';

/** chatprobe upstream: the recording upstream a gateway's channel points at, until Ctrl-C. */
export async function upstreamCommand(args: { port: number; host: string; models: string[] }): Promise<number> {
  let up: Awaited<ReturnType<typeof startUpstream>>;
  try {
    up = await startUpstream({ port: args.port, host: args.host, models: args.models });
  } catch (e) {
    return cannotTest(listenFailure(e, args.host, args.port));
  }
  // Listening from here, before the lines that tell a script to go on: a signal sent on reading them stops it cleanly.
  const stopped = untilStopped();
  out(`chatprobe upstream: records what reaches it and answers as each passthrough case scripts\n`);
  const everywhere = args.host === '0.0.0.0' || args.host === '::';
  out(`channel base URL: ${up.url}/v1 (an OpenAI-type channel; any key)${everywhere ? ` — listening on every interface: give the gateway this machine's address as it reaches it, port ${new URL(up.url).port}` : ''}\n`);
  out(`models: ${args.models.join(', ')} (name the channel's model the same, or any name the gateway maps to it)\n`);
  out(`then: chatprobe passthrough --base-url GATEWAY/v1 --upstream ${up.url} --models ${args.models[0]}\n`);
  out('press Ctrl-C to stop\n');
  await stopped;
  await up.close();
  return 0;
}
