import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BodyReader } from '../body/reader.js';
import type { BlockLimits, BlockReader, BlockSink } from './block.js';

/** A JSON body of calls between two markers: a call object, or a list of them. */
const jsonCalls = (format: BodyForm['format'], open: string, close: string): BodyForm => ({
  format,
  kind: 'calls',
  open,
  close,
  // Plain tags can stand inside a JSON string (code); special tokens cannot.
  closeIsToken: close.startsWith('<|'),
  syntax: Syntax.Json,
});

const HERMES = jsonCalls('hermes', '<tool_call>', '</tool_call>');

/**
 * Hermes' form (also Qwen2.5, Qwen3, many fine-tunes): `<tool_call>{"name": …, "arguments":
 * {…}}</tool_call>`, one call a block, or a JSON array of them. `arguments` may be a JSON
 * string holding the object. A `</tool_call>` inside a JSON string is the string's text.
 */
export const hermes: BlockReader = {
  open: HERMES.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(HERMES, sink, limits),
};

/** Hermes' `<tool_call>` body in 'auto', once its first character says it is JSON. */
export const hermesStream = (sink: BlockSink, limits: BlockLimits) =>
  new BodyReader(HERMES, sink, limits);

const NEMOTRON = jsonCalls('nemotron', '<TOOLCALL>', '</TOOLCALL>');

/** NVIDIA Nemotron's form: `<TOOLCALL>[{"name": …, "arguments": {…}}, …]</TOOLCALL>`. */
export const nemotron: BlockReader = {
  open: NEMOTRON.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(NEMOTRON, sink, limits),
};

const JAMBA = jsonCalls('jamba', '<tool_calls>', '</tool_calls>');

/** AI21 Jamba's form: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`. */
export const jamba: BlockReader = {
  open: JAMBA.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(JAMBA, sink, limits),
};

const COMMAND_R7B = jsonCalls('command-r7b', '<|START_ACTION|>', '<|END_ACTION|>');

/**
 * Cohere Command R7B's form: `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …,
 * "parameters": {…}}, …]<|END_ACTION|>`.
 */
export const commandR7b: BlockReader = {
  open: COMMAND_R7B.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(COMMAND_R7B, sink, limits),
};

const GRANITE = jsonCalls('granite', '<|tool_call|>', '');
const GRANITE_3_1 = jsonCalls('granite', '<tool_call>', '');

/** IBM Granite's form: `<|tool_call|>[{"name": …, "arguments": {…}}]`, ended by its JSON. */
export const granite: BlockReader = {
  open: GRANITE.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(GRANITE, sink, limits),
};

/** Granite 3.1's: the same list after `<tool_call>` (what llama.cpp's Granite reader takes). */
export const granite31: BlockReader = {
  open: GRANITE_3_1.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(GRANITE_3_1, sink, limits),
};
