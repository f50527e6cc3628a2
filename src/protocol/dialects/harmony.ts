import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BodyReader } from '../body/reader.js';
import type { BlockReader } from './block.js';

const harmony = (open: string): BodyForm => ({
  format: 'gpt-oss',
  kind: 'harmony',
  open,
  close: '',
  syntax: Syntax.Json,
});
const START = harmony('<|start|>');
const CHANNEL = harmony('<|channel|>');

/**
 * OpenAI gpt-oss's harmony format: `<|channel|>analysis<|message|>…<|end|>` is thinking,
 * `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}
 * <|call|>` (or with `to=` before the channel) is a call, other messages are text. Both
 * openings are special tokens: they open a message anywhere in a line.
 */
export const harmonyStart: BlockReader = {
  open: START.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(START, sink, limits),
};
export const harmonyChannel: BlockReader = {
  open: CHANNEL.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(CHANNEL, sink, limits),
};
