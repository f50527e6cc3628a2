import {
  type CallLike,
  createToolbox,
  type DispatchOptions,
  type DispatchReport,
  type Toolbox,
  taskCompletionTool,
} from '../tools/index.js';

const isCompletion = (call: CallLike) =>
  call.toolName === taskCompletionTool.name && call.serverName === 'local';

/**
 * The toolbox an agent runs with: the caller's, and `task_completion` when it has none, so a
 * run with only the caller's own tools can end with an answer (the model is told to call it,
 * and without it had no way to). Its calls run in a toolbox of their own; the rest as given.
 */
export async function withTaskCompletion(toolbox: Toolbox): Promise<Toolbox> {
  const listed = await toolbox.listTools();
  if (listed.some((t) => t.name === taskCompletionTool.name)) return toolbox;
  const own = createToolbox({ tools: [taskCompletionTool] });
  const runAll = async (
    calls: readonly CallLike[],
    options?: DispatchOptions,
  ): Promise<DispatchReport[]> => {
    const mine = calls.filter(isCompletion);
    const theirs = calls.filter((c) => !isCompletion(c));
    const [ours, others] = await Promise.all([
      own.runAll(mine, options),
      toolbox.runAll(theirs, options),
    ]);
    return calls.map((c) => (isCompletion(c) ? ours.shift() : others.shift()) as DispatchReport);
  };
  return {
    ...toolbox,
    listTools: async () => [...(await toolbox.listTools()), ...(await own.listTools())],
    schemas: async () => ({ ...(await toolbox.schemas()), ...(await own.schemas()) }),
    run: (call, options) =>
      isCompletion(call) ? own.run(call, options) : toolbox.run(call, options),
    dispatch: async (call, options) => (isCompletion(call) ? own : toolbox).dispatch(call, options),
    runAll,
    dispatchAll: async (calls, options) => (await runAll(calls, options)).map((r) => r.result),
  };
}
