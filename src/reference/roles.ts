import { colourName, firstPixel } from '../media/png.js';
import { rejection, type Reply } from './errors.js';
import type { Behaviour, ProfileModel } from './profile.js';

export interface Message {
  role?: unknown;
  content?: unknown;
  name?: unknown;
  tool_calls?: unknown;
}

type Part = { type?: unknown; text?: unknown; image_url?: { url?: unknown } };

/** The message features a profile can honour, ignore or reject, by the key used in `roles`. */
export const ROLE_KEYS = ['system', 'developer', 'history', 'prefill', 'tool', 'content_parts', 'image', 'name', 'consecutive_user', 'empty_content'] as const;
export type RoleKey = (typeof ROLE_KEYS)[number];

/** Which features a message uses, with the request parameter a refusal names. */
function featuresOf(messages: readonly Message[], i: number): [RoleKey, string][] {
  const m = messages[i]!;
  const out: [RoleKey, string][] = [];
  const at = `messages[${i}]`;
  if (m.role === 'system') out.push(['system', `${at}.role`]);
  if (m.role === 'developer') out.push(['developer', `${at}.role`]);
  if (m.role === 'assistant') out.push([i === messages.length - 1 ? 'prefill' : 'history', `${at}.role`]);
  if (m.role === 'tool') out.push(['tool', `${at}.role`]);
  if (Array.isArray(m.content)) {
    out.push(['content_parts', `${at}.content`]);
    if ((m.content as Part[]).some((p) => p?.type === 'image_url')) out.push(['image', `${at}.content`]);
  }
  if (m.name !== undefined) out.push(['name', `${at}.name`]);
  if (m.content === '') out.push(['empty_content', `${at}.content`]);
  if (i > 0 && m.role === 'user' && messages[i - 1]!.role === 'user') out.push(['consecutive_user', `${at}.role`]);
  return out;
}

/**
 * The messages as the model will see them: refused outright, or with what the profile ignores dropped
 * (an ignored system message, the parts after the first, images, assistant history, tool results, a
 * prefill) and honoured images turned into a note of their colour for the pseudo-model.
 */
export function applyRoles(model: ProfileModel, messages: readonly Message[]): { messages: Message[] } | { refusal: Reply } {
  const behaviour = (key: RoleKey): Behaviour => model.roles[key] ?? 'honour';
  for (let i = 0; i < messages.length; i++) {
    for (const [key, param] of featuresOf(messages, i)) {
      const b = behaviour(key);
      if (typeof b === 'object' && 'reject' in b) return { refusal: rejection(b.reject, param) };
      if (typeof b === 'object') return { refusal: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: b.error200, type: 'upstream_error' } }) } };
    }
  }
  const kept: Message[] = [];
  for (const [i, m] of messages.entries()) {
    const keys = featuresOf(messages, i).map(([k]) => k);
    if (keys.some((k) => ['system', 'developer', 'history', 'prefill', 'tool'].includes(k) && behaviour(k) === 'ignore')) continue;
    if (!Array.isArray(m.content)) {
      kept.push(m);
      continue;
    }
    let parts = (m.content as Part[]).flatMap((p): Part[] => {
      if (p?.type !== 'image_url') return [p];
      if (behaviour('image') === 'ignore') return [];
      const url = typeof p.image_url?.url === 'string' ? p.image_url.url : '';
      const pixel = url.startsWith('data:image/png;base64,') ? firstPixel(Buffer.from(url.slice(22), 'base64')) : undefined;
      return [{ type: 'text', text: pixel ? `[image: ${colourName(pixel)}]` : '[image: unreadable]' }];
    });
    if (behaviour('content_parts') === 'ignore') parts = parts.slice(0, 1);
    kept.push({ ...m, content: parts });
  }
  return { messages: kept };
}
