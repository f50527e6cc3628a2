import { describe, expect, it } from 'vitest';

describe('the package', () => {
  it('imports by its own name after npm ci (exports point at the compiled build)', async () => {
    const tagcall = await import('tagcall');
    expect(typeof tagcall.createParser).toBe('function');
    expect(tagcall.parse('<tool>\n<tool_name>ping</tool_name>\n</tool>\n').calls[0].toolName).toBe(
      'ping',
    );
  });

  it('exports the AI SDK middleware as tagcall/ai-sdk', async () => {
    const { tagcallMiddleware } = await import('tagcall/ai-sdk');
    expect(tagcallMiddleware().specificationVersion).toBe('v3');
  });
});
