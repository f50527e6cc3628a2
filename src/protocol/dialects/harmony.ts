import type { AnswerMarkers, BlockReader } from '../block.js';
import type { BodyForm, MessageForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/**
 * A message's header ends with `<|message|>`; the message with its end, a call's, the reply's,
 * or the next message's start. `to=functions.NAME` in the header makes it a call, the analysis
 * channel thinking.
 */
const MESSAGE_START = '<|start|>';
const CALL_END = '<|call|>';
const MESSAGE: MessageForm = {
  headerEnd: '<|message|>',
  start: MESSAGE_START,
  ends: ['<|end|>', CALL_END, '<|return|>'],
  callEnd: CALL_END,
  recipient: /\bto=functions\.([^\s<]+)/,
  thinking: /<\|channel\|>\s*analysis\b/,
  answer: /<\|channel\|>\s*final\b/,
  name: 'harmony',
};
const harmony = (open: string): BodyForm => ({
  format: 'gpt-oss',
  recoveries: BODY_RECOVERIES,
  kind: 'messages',
  open,
  close: '',
  syntax: Syntax.Json,
  message: MESSAGE,
});
const START = harmony(MESSAGE_START);
const CHANNEL = harmony('<|channel|>');
/** The rest of a header whose `<|start|>assistant` the prompt wrote. */
const HEADER_TAIL = harmony('');

/**
 * OpenAI gpt-oss's harmony format: `<|channel|>analysis<|message|>…<|end|>` is thinking,
 * `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}
 * <|call|>` (or with `to=` before the channel) is a call, other messages are text. Both
 * openings are special tokens: they open a message anywhere in a line.
 */
export const harmonyStart: BlockReader = {
  open: START.open,
  anywhere: true,
  reads: { body: START },
};
export const harmonyChannel: BlockReader = {
  open: CHANNEL.open,
  anywhere: true,
  reads: { body: CHANNEL },
};

const RECIPIENT = ' to=functions.';
/** The recipient, and one more character of the header. */
const RECIPIENT_HEAD = / to=functions\.[\s\S]/y;

/**
 * A reply that begins inside its header: gpt-oss's template ends the prompt with
 * `<|start|>assistant`, so a reply that calls a tool at once begins
 * ` to=functions.NAME<|channel|>commentary json<|message|>{…}`. (One that begins with
 * `<|channel|>` opens with it, as anywhere.)
 */
export const harmonyHeaderTail: BlockReader = {
  open: HEADER_TAIL.open,
  inputStart: RECIPIENT_HEAD,
  reads: { body: HEADER_TAIL },
};

/**
 * The end of the reply, after its final message (whose header is the message form's answer
 * marker): out of the text too.
 */
export const GPT_OSS_ANSWER: AnswerMarkers = { tokens: ['<|return|>'], specialTokens: true };

/** The channel a call is written in, its recipient after it. */
const CALL_HEAD = `${CHANNEL.open}commentary${RECIPIENT}`;

/**
 * A call as gpt-oss writes it: a message of its own on the commentary channel, its recipient in
 * the header, one a reply (`<|call|>` ends the reply). The prompt ends with `<|start|>assistant`:
 * a reply that calls at once begins with the channel, so a grammar leaves that head out.
 */
export const GPT_OSS_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: { before: [CALL_HEAD, SLOT.name, ' <|constrain|>json<|message|>'], after: CALL_END },
  open: '',
  close: '',
  separator: '',
  maxCalls: 1,
  trigger: CALL_HEAD,
  lead: { rendered: `${START.open}assistant` },
  tokens: [MESSAGE_START, CHANNEL.open, '<|constrain|>', MESSAGE.headerEnd, ...MESSAGE.ends],
};
