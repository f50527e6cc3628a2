import { parseModelJson, readJsonArguments } from '../json-call.js';
import { type BlockCall, type BlockReader, failure } from './block.js';

/**
 * Hermes' form (also Qwen2.5, many fine-tunes): `<tool_call>{"name": …, "arguments": {…}}</tool_call>`,
 * one call a block, or a JSON array of them. `arguments` may be a JSON string holding the object.
 */
export const hermes: BlockReader = {
  open: '<tool_call>',
  close: '</tool_call>',
  anywhere: true,
  jsonBody: () => true,
  read(block, limits) {
    const start = '<tool_call>'.length;
    const json = block.slice(start, block.length - '</tool_call>'.length);
    const read = parseModelJson(json, limits.maxDepth);
    if (!read.ok)
      return failure(
        read.code,
        `the call is not valid JSON: ${read.message}`,
        start + read.position,
      );
    const parsed = read.value;
    const items = Array.isArray(parsed) ? parsed : [parsed];
    const calls: BlockCall[] = [];
    for (const item of items) {
      const fields = (item ?? {}) as { name?: unknown; arguments?: unknown; parameters?: unknown };
      if (typeof fields.name !== 'string' || fields.name.trim() === '')
        return failure(
          'missing-tool-name',
          'each call needs "name": {"name": "tool", "arguments": {…}}',
          start,
        );
      const args = readJsonArguments(fields.arguments ?? fields.parameters, limits.maxDepth);
      if (!args.ok) return failure(args.code, args.message, start);
      calls.push({
        serverName: 'local',
        toolName: fields.name.trim(),
        arguments: args.arguments,
        end: block.length,
      });
    }
    if (calls.length === 0)
      return failure('missing-tool-name', 'the <tool_call> block holds an empty list', start);
    // One block, several calls: each but the last owns nothing of the text but its place.
    calls.forEach((call, i) => {
      call.end = i === calls.length - 1 ? block.length : start;
    });
    return { ok: true, format: 'hermes', calls };
  },
};
