import type { FenceForm } from '../body/form.js';

/**
 * A Markdown fence, ```` ```lang ```` on a line of its own and ```` ``` ```` after what it
 * holds; `label` is how warnings name it.
 */
export const markdownFence = (label: string): FenceForm => ({
  open: /```[a-z]*[ \t]*\r?\n/y,
  begun: /^(?:`{1,2}|```[a-z]*[ \t]*\r?)$/,
  close: '```',
  label,
});
