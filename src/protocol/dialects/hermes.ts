import { createObject } from '../arguments-tree.js';
import type { ToolArguments } from '../events.js';
import { parseModelJson, toNullPrototype } from '../json-call.js';
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
      let args = fields.arguments ?? fields.parameters;
      if (typeof args === 'string') {
        const inner = parseModelJson(args, limits.maxDepth);
        if (!inner.ok)
          return failure(
            inner.code,
            `"arguments" is a string that does not hold a JSON object (${inner.message})`,
            start,
          );
        args = inner.value;
      }
      if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args)))
        return failure('invalid-json', '"arguments" must be an object', start);
      calls.push({
        serverName: 'local',
        toolName: fields.name.trim(),
        arguments: args == null ? createObject() : (toNullPrototype(args) as ToolArguments),
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
