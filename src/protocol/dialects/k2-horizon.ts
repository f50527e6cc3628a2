import type { BlockReader } from '../block.js';
import { type PairMarkers, pairRecoveries, pairsForm, pairsWritten } from './glm.js';

/** K2 Horizon's tags are `<ifm|NAME>` … `</ifm|NAME>`. */
const tag = (name: string) => [`<ifm|${name}>`, `</ifm|${name}>`] as const;
const [CALLS, CALLS_CLOSE] = tag('tool_calls');
const [CALL, CALL_CLOSE] = tag('tool_call');
const [KEY, KEY_CLOSE] = tag('arg_key');
const [VALUE, VALUE_CLOSE] = tag('arg_value');

const MARKERS: PairMarkers = {
  call: CALL,
  callClose: CALL_CLOSE,
  key: KEY,
  keyClose: KEY_CLOSE,
  value: VALUE,
  valueClose: VALUE_CLOSE,
  block: { open: CALLS, close: CALLS_CLOSE },
};
export const K2_HORIZON_RECOVERIES = pairRecoveries(MARKERS);
const FORM = pairsForm('k2-horizon', MARKERS, K2_HORIZON_RECOVERIES, false);

/**
 * K2 Horizon's form in its default `xml` mode (vLLM's `k2_horizon` parser): GLM's key and
 * value pairs under `<ifm|…>` tags, `<ifm|tool_calls><ifm|tool_call>name<ifm|arg_key>k`
 * `</ifm|arg_key><ifm|arg_value>v</ifm|arg_value></ifm|tool_call></ifm|tool_calls>`, values
 * as written (a schema types them). No prose writes `<ifm|`: the block opens anywhere, in
 * `auto` too. Its `xml_typed` mode's `<ifm|arg_type>` and its `json` mode are not read.
 */
export const k2Horizon: BlockReader = {
  open: CALLS,
  anywhere: true,
  reads: { markup: FORM },
};

/** No public template was found: written back to back, as vLLM's tests write its calls. */
export const K2_HORIZON_WRITTEN = pairsWritten(MARKERS, { nameEnd: '', keyEnd: '', after: '' });
