import type { BlockReader } from '../block.js';
import { type PairMarkers, pairRecoveries, pairsForm, pairsWritten } from './glm.js';

const MARKERS: PairMarkers = {
  call: '<iquestcoder_tool_call>',
  callClose: '</iquestcoder_tool_call>',
  key: '<arg_key>',
  keyClose: '</arg_key>',
  value: '<arg_value>',
  valueClose: '</arg_value>',
};
export const IQUEST_CODER_V2_RECOVERIES = pairRecoveries(MARKERS);
const FORM = pairsForm('iquest-coder-v2', MARKERS, IQUEST_CODER_V2_RECOVERIES, false);

/**
 * IQuest Coder V2's form (vLLM's `iquest_coder_v2` parser): GLM's key and value pairs in its
 * own call tag, `<iquestcoder_tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value>`
 * `</iquestcoder_tool_call>`, one call a block, values as written (a schema types them). Its
 * call tags are special tokens of its vocabulary: the block opens anywhere, in `auto` too.
 */
export const iquestCoderV2: BlockReader = {
  open: MARKERS.call,
  anywhere: true,
  reads: { markup: FORM },
};

/** No public template was found: written back to back, as vLLM's tests write its calls. */
export const IQUEST_CODER_V2_WRITTEN = pairsWritten(MARKERS, {
  nameEnd: '',
  keyEnd: '',
  after: '',
});
