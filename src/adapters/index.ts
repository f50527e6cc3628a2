export { ArgumentsJsonWriter } from './arguments-json.js';
export {
  createNativeCalls,
  type NativeCalls,
  type NativeCallsOptions,
  type NativeEvent,
  type NativeTool,
} from './native-calls.js';
