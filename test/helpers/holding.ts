import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server on 127.0.0.1 that holds every request unanswered; `asked` resolves when the first arrives. */
export async function holdingServer(): Promise<{ url: string; asked: Promise<void>; close(): Promise<void> }> {
  let reached = () => {};
  const asked = new Promise<void>((r) => (reached = r));
  const server = createServer(() => reached());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    asked,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
