export { BadRequest, type ChatRequest, planUpstream, readChatRequest } from './chat-request.js';
export { ChatAnswer, type ChatCompletionMessage } from './chat-response.js';
export { PROXY_DEFAULTS, type ProxyOptions, type RunningProxy, startProxy } from './proxy.js';
