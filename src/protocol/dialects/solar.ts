import type { BlockReader, ThinkingTags } from '../block.js';
import { type PairMarkers, pairRecoveries, pairsForm, pairsWritten } from './glm.js';

const MARKERS: PairMarkers = {
  call: '<|tool_call:start|>',
  callClose: '<|tool_call:end|>',
  key: '<|tool_arg:start|>',
  keyClose: '<|tool_arg:value|>',
  // The key's close opens the value.
  value: '',
  valueClose: '<|tool_arg:end|>',
};
export const SOLAR_RECOVERIES = pairRecoveries(MARKERS);
const FORM = pairsForm('solar', MARKERS, SOLAR_RECOVERIES, false);

/**
 * Upstage Solar Open 2's form (vLLM's `solar_open2` parser): `<|tool_call:start|>name`, a
 * newline, per argument `<|tool_arg:start|>key<|tool_arg:value|>value<|tool_arg:end|>`, then
 * `<|tool_call:end|>`; one call a block, values as written (a schema types them). Its tokens
 * are special tokens: the block opens anywhere, in `auto` too.
 */
export const solar: BlockReader = {
  open: MARKERS.call,
  anywhere: true,
  reads: { markup: FORM },
};

/** No public template was found: written as vLLM's tests write its calls, a line each. */
export const SOLAR_WRITTEN = pairsWritten(MARKERS, {
  nameEnd: '\n',
  keyEnd: '',
  after: '\n',
});

/** Solar Open 2's thinking. */
export const SOLAR_THINKING: ThinkingTags = ['<|think:start|>', '<|think:end|>'];
